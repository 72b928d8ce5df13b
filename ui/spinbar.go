package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// barSlot holds an infinite progress bar only while it runs. Fyne 2.7.1's
// ProgressBarInfinite is no widget to keep hidden: creating its renderer marks it running,
// and the next refresh starts its animation even while it is hidden; Hide clears the running
// flag without stopping the animation, after which Stop does nothing. Either way it animates
// unseen and redraws the whole window every frame (~13% of a core under Xvfb with the
// settings open, measured with tools/idlecpu). A bar made when needed and stopped before it
// leaves the tree cannot.
type barSlot struct {
	Box *fyne.Container // where the bar appears: put it in the layout
	bar *widget.ProgressBarInfinite
}

func newBarSlot() *barSlot { return &barSlot{Box: container.NewStack()} }

// run shows a running bar (on) or stops and removes it.
func (s *barSlot) run(on bool) {
	switch {
	case on && s.bar == nil:
		s.bar = widget.NewProgressBarInfinite()
		s.Box.Objects = []fyne.CanvasObject{s.bar}
		s.Box.Refresh()
	case !on && s.bar != nil:
		s.bar.Stop()
		s.bar = nil
		s.Box.Objects = nil
		s.Box.Refresh()
	}
}
