package ui

import (
	"net/url"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"edgechat/history"
)

// urlApp is the test app noting the addresses it is asked to open.
type urlApp struct {
	fyne.App
	opened []string
}

func (a *urlApp) OpenURL(u *url.URL) error {
	a.opened = append(a.opened, u.String())
	return nil
}

// clickTarget is the object a click at p (canvas coordinates) goes to, found as the desktop
// driver finds it: the topmost visible object there that takes clicks.
func clickTarget(c fyne.Canvas, p fyne.Position) fyne.CanvasObject {
	takes := func(o fyne.CanvasObject) bool {
		switch o.(type) {
		case fyne.Tappable, fyne.SecondaryTappable, fyne.DoubleTappable, fyne.Focusable, desktop.Mouseable:
			return true
		}
		return false
	}
	var at func(o fyne.CanvasObject, p fyne.Position) fyne.CanvasObject
	at = func(o fyne.CanvasObject, p fyne.Position) fyne.CanvasObject {
		q := p.Subtract(o.Position())
		if !o.Visible() || q.X < 0 || q.Y < 0 || q.X >= o.Size().Width || q.Y >= o.Size().Height {
			return nil
		}
		var kids []fyne.CanvasObject
		switch o := o.(type) {
		case *fyne.Container:
			kids = o.Objects
		case fyne.Widget:
			kids = test.WidgetRenderer(o).Objects()
		}
		for i := len(kids) - 1; i >= 0; i-- {
			if h := at(kids[i], q); h != nil {
				return h
			}
		}
		if takes(o) {
			return o
		}
		return nil
	}
	return at(c.Content(), p)
}

// menuLabels are the items of the pop-up menu shown, and a tap on each by its label.
func menuLabels(t *testing.T, c fyne.Canvas) ([]string, map[string]fyne.Tappable) {
	t.Helper()
	top := c.Overlays().Top()
	if top == nil {
		t.Fatal("no menu shown")
	}
	var labels []string
	taps := map[string]fyne.Tappable{}
	var item fyne.Tappable // the innermost tappable around the text
	walkVisible(top, func(o fyne.CanvasObject) {
		if tp, ok := o.(fyne.Tappable); ok {
			item = tp
		}
		if txt, ok := o.(*canvas.Text); ok && txt.Text != "" {
			labels = append(labels, txt.Text)
			taps[txt.Text] = item
		}
	})
	return labels, taps
}

// A right-click on a link in a reply offers Open link (as a click does) and Copy link
// address; elsewhere in the reply it still offers Select text and Copy reply.
func TestReplyLinkMenu(t *testing.T) {
	a := &urlApp{App: test.NewTempApp(t)}
	fyne.SetCurrentApp(a)
	t.Cleanup(func() { fyne.SetCurrentApp(a.App) })
	m := newMessageVM(history.Message{Role: "assistant"})
	m.Answer.Append("First paragraph.\n\nSee [the docs](https://example.com/docs?q=1) for more.\n\nLast paragraph.")
	b := newBubble(m, nil, nil)
	w := test.NewTempWindow(t, b.content)
	w.Resize(fyne.NewSize(600, 400))
	c := w.Canvas()

	var link *menuLink
	walkVisible(b.content, func(o fyne.CanvasObject) {
		if l, ok := o.(*menuLink); ok && l.Text == "the docs" {
			link = l
		}
	})
	if link == nil {
		t.Fatal("no link drawn for [the docs](…)")
	}
	// The right-click goes to the link, not to the reply around it.
	mid := fyne.CurrentApp().Driver().AbsolutePositionForObject(link).Add(fyne.NewPos(link.Size().Width/2, link.Size().Height/2))
	if got := clickTarget(c, mid); got != link {
		t.Fatalf("a click on the link goes to %T, want the link", got)
	}
	test.TapSecondaryAt(link, fyne.NewPos(link.Size().Width/2, link.Size().Height/2))
	labels, taps := menuLabels(t, c)
	if want := []string{"Open link", "Copy link address"}; !slices.Equal(labels, want) {
		t.Fatalf("the link's menu shows %q, want %q", labels, want)
	}
	test.Tap(taps["Copy link address"])
	if got := a.Clipboard().Content(); got != "https://example.com/docs?q=1" {
		t.Errorf("Copy link address copied %q", got)
	}
	if c.Overlays().Top() != nil {
		t.Error("the menu stayed open after Copy link address")
	}

	test.TapSecondary(link)
	_, taps = menuLabels(t, c)
	test.Tap(taps["Open link"])
	test.TapAt(link, fyne.NewPos(link.Size().Width/2, link.Size().Height/2)) // a click
	if want := []string{"https://example.com/docs?q=1", "https://example.com/docs?q=1"}; !slices.Equal(a.opened, want) {
		t.Errorf("Open link and a click opened %q, want %q", a.opened, want)
	}

	// By keyboard: on the link reached with Tab, the Menu key and Shift+F10 show the same
	// menu under it, with the keyboard in it; F10 alone and Space do not.
	c.Focus(link)
	for _, tc := range []struct {
		name  string
		press func()
	}{
		{"Menu", func() { c.Focused().TypedKey(&fyne.KeyEvent{Name: desktop.KeyMenu}) }},
		{"Shift+F10", func() {
			link.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
			c.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyF10})
			link.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
		}},
	} {
		a.Clipboard().SetContent("")
		c.Focus(link)
		tc.press()
		labels, _ := menuLabels(t, c)
		if want := []string{"Open link", "Copy link address"}; !slices.Equal(labels, want) {
			t.Fatalf("%s on the link shows %q, want %q", tc.name, labels, want)
		}
		if _, ok := c.Focused().(*widget.PopUpMenu); !ok {
			t.Fatalf("%s: the keyboard is on %T, not in the menu", tc.name, c.Focused())
		}
		// Where the pop-up puts the menu, in the canvas's coordinates as the link's.
		at := c.Focused().(*widget.PopUpMenu).Menu.Position()
		link0 := fyne.CurrentApp().Driver().AbsolutePositionForObject(link)
		if below := link0.Y + link.Size().Height; at.Y < below-1 || at.Y > below+1 || at.X < link0.X || at.X > link0.X+link.Size().Width {
			t.Errorf("%s: the menu is at %v, want under the link (%v, %v)", tc.name, at, link0, link.Size())
		}
		for _, k := range []fyne.KeyName{fyne.KeyDown, fyne.KeyDown, fyne.KeyReturn} {
			c.Focused().TypedKey(&fyne.KeyEvent{Name: k})
		}
		if got := a.Clipboard().Content(); got != "https://example.com/docs?q=1" {
			t.Errorf("%s, Down, Down, Enter copied %q", tc.name, got)
		}
		if c.Overlays().Top() != nil {
			t.Errorf("%s: the menu stayed open after Copy link address", tc.name)
		}
	}
	c.Focus(link)
	c.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyF10})
	if c.Overlays().Top() != nil {
		t.Error("F10 without Shift showed the link's menu")
	}
	c.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
	if n := len(a.opened); n != 3 || c.Overlays().Top() != nil {
		t.Errorf("Space on the link: %d opened (want 3), menu %v", n, c.Overlays().Top())
	}
	c.Unfocus()

	// Elsewhere in the reply: the reply's own menu.
	frame := fyne.CurrentApp().Driver().AbsolutePositionForObject(b.reply.frame)
	if got := clickTarget(c, frame.Add(fyne.NewPos(b.reply.frame.Size().Width-5, 5))); got != b.reply.frame {
		t.Fatalf("a click beside the link goes to %T, want the reply", got)
	}
	test.TapSecondary(b.reply.frame)
	if labels, _ = menuLabels(t, c); !slices.Equal(labels, []string{"Select text", "Copy reply"}) {
		t.Errorf("the reply's menu shows %q", labels)
	}
	b.close()
}
