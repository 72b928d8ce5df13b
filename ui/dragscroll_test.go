package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

func TestAutoScrollSpeed(t *testing.T) {
	for _, tc := range []struct {
		out, want float32
	}{
		{-5, 0}, {0, 0}, {1, autoMinSpeed + autoPerUnit}, {50, autoMinSpeed + 50*autoPerUnit}, {10000, autoMaxSpeed},
	} {
		if got := autoScrollSpeed(tc.out); got != tc.want {
			t.Errorf("autoScrollSpeed(%v) = %v, want %v", tc.out, got, tc.want)
		}
	}
}

// dragWindow shows a header above a scroller holding a text of 80 numbered lines, scrolled
// to its end, as the transcript is.
func dragWindow(t *testing.T) (*queuedDriver, *container.Scroll, *selectText, fyne.Window) {
	t.Helper()
	d := newQueuedApp(t)
	var lines []string
	for i := range 80 {
		lines = append(lines, fmt.Sprintf("line %02d", i))
	}
	scroll := container.NewVScroll(nil)
	s := newSelectText(strings.Join(lines, "\n"), scroll)
	scroll.Content = container.NewVBox(s)
	w := test.NewTempWindow(t, container.NewBorder(widget.NewLabel("Header"), widget.NewLabel("Composer"), nil, nil, scroll))
	w.SetPadded(false)
	w.Resize(fyne.NewSize(400, 300))
	d.run()
	scroll.ScrollToBottom()
	return d, scroll, s, w
}

// drag sends a drag event with the pointer at p (canvas coordinates) to s, as the driver does.
func drag(s *selectText, p fyne.Position) {
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(s)
	s.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: p.Subtract(at), AbsolutePosition: p}})
}

// runFor runs the main loop's queue for a while, as frames would.
func runFor(d *queuedDriver, wait time.Duration) {
	for end := time.Now().Add(wait); time.Now().Before(end); {
		time.Sleep(5 * time.Millisecond)
		d.run()
	}
}

// Dragging a selection above the transcript scrolls it up, and the selection grows with the
// text that comes into view; below scrolls down; back inside or let go, it stops.
func TestSelectionDragScrollsTheTranscript(t *testing.T) {
	d, scroll, s, w := dragWindow(t)
	top := fyne.CurrentApp().Driver().AbsolutePositionForObject(scroll)
	start := scroll.Offset.Y
	if start == 0 {
		t.Fatal("the text fits the view; the test needs a taller one")
	}

	// Press on the first line in view, drag 20 units above the scroller (over the header).
	press := fyne.NewPos(top.X+30, top.Y+10)
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(s)
	s.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: press.Subtract(at), AbsolutePosition: press}, Button: desktop.MouseButtonPrimary})
	anchor := s.anchor
	drag(s, fyne.NewPos(press.X, top.Y-20))
	runFor(d, 300*time.Millisecond)
	up := scroll.Offset.Y
	if up >= start {
		t.Fatalf("offset %v after dragging above the transcript for 0.3 s, want less than %v", up, start)
	}
	a, b := s.selection()
	if b != anchor || a >= anchor {
		t.Errorf("selection [%d, %d), want it to end at the press (%d) and reach above it", a, b, anchor)
	}
	// The selection starts at the row under the pointer: the first row in view.
	first := s.rowAt(scroll.Offset.Y - s.Position().Y)
	if got := s.rowOf(a); got > first+1 || got < first-1 {
		t.Errorf("the selection starts on row %d, want the first row in view (%d)", got, first)
	}

	// Farther out scrolls faster.
	drag(s, fyne.NewPos(press.X, top.Y-20))
	before := scroll.Offset.Y
	runFor(d, 100*time.Millisecond)
	near := before - scroll.Offset.Y
	drag(s, fyne.NewPos(press.X, top.Y-200))
	before = scroll.Offset.Y
	runFor(d, 100*time.Millisecond)
	far := before - scroll.Offset.Y
	if far <= near {
		t.Errorf("scrolled %v in 0.1 s at 200 units out, %v at 20: want faster farther out", far, near)
	}

	// Back inside: no more scrolling.
	drag(s, fyne.NewPos(press.X, top.Y+50))
	d.run()
	inside := scroll.Offset.Y
	runFor(d, 100*time.Millisecond)
	if scroll.Offset.Y != inside {
		t.Errorf("the transcript scrolled from %v to %v with the pointer inside", inside, scroll.Offset.Y)
	}

	// Below the transcript it scrolls down; letting go stops it.
	drag(s, fyne.NewPos(press.X, top.Y+scroll.Size().Height+30))
	runFor(d, 150*time.Millisecond)
	if scroll.Offset.Y <= inside {
		t.Errorf("offset %v after dragging below the transcript, want more than %v", scroll.Offset.Y, inside)
	}
	// Let go over the header: the driver unfocuses, then ends the drag; Ctrl+C still copies.
	w.Canvas().Unfocus()
	s.DragEnd()
	if w.Canvas().Focused() != s {
		t.Error("the text lost the keyboard when the drag ended outside it")
	}
	d.run()
	ended := scroll.Offset.Y
	runFor(d, 100*time.Millisecond)
	if scroll.Offset.Y != ended {
		t.Errorf("the transcript scrolled from %v to %v after the drag ended", ended, scroll.Offset.Y)
	}
}
