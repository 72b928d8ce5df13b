package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
)

// Dragging a selection past the top or bottom of the transcript scrolls it, as a text editor
// or a browser does: while the pointer stays outside, a ticker scrolls a step each autoTick
// (faster the farther out the pointer is) and extends the selection to the text that comes
// under the pointer. The driver sends Dragged only when the pointer moves, hence the ticker.

const (
	autoTick     = 25 * time.Millisecond // ~40 steps a second
	autoMinSpeed = 200                   // units a second, just outside the edge
	autoPerUnit  = 12                    // more units a second per unit outside
	autoMaxSpeed = 4000                  // the fastest, far outside
)

// autoScrollSpeed is how fast (units a second) to scroll with the pointer out units beyond
// the edge of the visible part.
func autoScrollSpeed(out float32) float32 {
	if out <= 0 {
		return 0
	}
	return min(autoMaxSpeed, autoMinSpeed+autoPerUnit*out)
}

// dragScroll scrolls a selection's scroller while a drag is outside it. Used on the main
// goroutine only, but for its ticker's goroutine, which only sends to the main one.
type dragScroll struct {
	scroll  *container.Scroll // nil: the text is not in a scroller
	pointer fyne.Position     // the pointer, in canvas coordinates
	follow  func()            // extends the selection to the pointer
	stop    chan struct{}     // closed to stop the ticker; nil when none runs
	last    time.Time         // the previous step
}

// outside is how far the pointer is above (negative) or below (positive) the visible part of
// the scroller; 0 while it is inside.
func (d *dragScroll) outside() float32 {
	if d.scroll == nil {
		return 0
	}
	top := fyne.CurrentApp().Driver().AbsolutePositionForObject(d.scroll).Y
	bottom := top + d.scroll.Size().Height
	switch y := d.pointer.Y; {
	case y < top:
		return y - top
	case y > bottom:
		return y - bottom
	}
	return 0
}

// moved notes the pointer at p (canvas coordinates) and starts or stops the ticker.
func (d *dragScroll) moved(p fyne.Position) {
	d.pointer = p
	if d.outside() == 0 {
		d.end()
		return
	}
	if d.stop != nil {
		return
	}
	d.stop = make(chan struct{})
	d.last = time.Now()
	go tick(d.stop, d.step)
}

// tick calls step on the main goroutine every autoTick until stop is closed.
func tick(stop <-chan struct{}, step func()) {
	t := time.NewTicker(autoTick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			fyne.Do(step)
		}
	}
}

// step scrolls by the time since the last step at the pointer's speed, then follows it.
func (d *dragScroll) step() {
	if d.stop == nil {
		return // a step queued before the drag ended
	}
	now := time.Now()
	dt := float32(now.Sub(d.last).Seconds())
	d.last = now
	out := d.outside()
	if out == 0 {
		d.end()
		return
	}
	dy := autoScrollSpeed(max(out, -out)) * dt
	if out < 0 {
		dy = -dy
	}
	// As the wheel does: clamped to the content, and OnScrolled hears of it (the transcript
	// stops following the newest text when scrolled up).
	d.scroll.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -dy}})
	d.follow()
}

// end stops the ticker (the drag ended, or the pointer came back inside).
func (d *dragScroll) end() {
	if d.stop != nil {
		close(d.stop)
		d.stop = nil
	}
}
