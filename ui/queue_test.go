package ui

import (
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// queuedDriver is the test driver with the desktop driver's timing: fyne.Do (and so every
// binding listener, including the first call made by AddListener) runs later, when run is
// called, not inline as on the plain test driver.
type queuedDriver struct {
	fyne.Driver
	mu sync.Mutex
	q  []func()
}

func (d *queuedDriver) DoFromGoroutine(f func(), wait bool) {
	if wait {
		f()
		return
	}
	d.mu.Lock()
	d.q = append(d.q, f)
	d.mu.Unlock()
}

// run runs the queued callbacks, and those they queue, like the main loop between frames.
func (d *queuedDriver) run() {
	for {
		d.mu.Lock()
		if len(d.q) == 0 {
			d.mu.Unlock()
			return
		}
		f := d.q[0]
		d.q = d.q[1:]
		d.mu.Unlock()
		f()
	}
}

type queuedApp struct {
	fyne.App
	drv *queuedDriver
}

func (a *queuedApp) Driver() fyne.Driver { return a.drv }

// newQueuedApp makes a test app whose fyne.Do is queued; the plain one is restored after t.
func newQueuedApp(t testing.TB) *queuedDriver {
	t.Helper()
	a := test.NewTempApp(t)
	d := &queuedDriver{Driver: a.Driver()}
	fyne.SetCurrentApp(&queuedApp{App: a, drv: d})
	t.Cleanup(func() { fyne.SetCurrentApp(a) })
	return d
}

// frame does what the desktop driver does before it draws: lay out again every container
// and widget whose children's minimum size changed (here simply all of them, top down).
func frame(w fyne.Window) {
	relayout(w.Content())
}

func relayout(o fyne.CanvasObject) {
	if !o.Visible() {
		return
	}
	switch o := o.(type) {
	case *fyne.Container:
		if o.Layout != nil {
			o.Layout.Layout(o.Objects, o.Size())
		}
		for _, c := range o.Objects {
			relayout(c)
		}
	case fyne.Widget:
		r := test.WidgetRenderer(o)
		r.Layout(o.Size())
		for _, c := range r.Objects() {
			relayout(c)
		}
	}
}
