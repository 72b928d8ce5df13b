package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// barSlot holds an infinite progress bar only while it runs. Fyne 2.7.1's
// ProgressBarInfinite was no widget to keep hidden: creating its renderer marked it running,
// and the next refresh started its animation even while it was hidden; Hide cleared the
// running flag without stopping the animation, after which Stop did nothing. Either way it
// animated unseen and redrew the whole window every frame (~13% of a core under Xvfb with the
// settings open, measured with tools/idlecpu). Fyne 2.7.4 changed when the bar starts
// (fyne#6221); a bar made when needed and stopped before it leaves the tree animates unseen
// in neither.
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
