package ui

import (
	"net/url"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// A link in a reply has its own right-click menu: Open link (what a click does) and Copy link
// address. Fyne's Hyperlink has no menu, and it takes the right-click from the reply under it
// (the driver gives a click to the innermost object that takes clicks), so a right-click on a
// link showed nothing. The rendered segments keep Fyne's HyperlinkSegment (the wrapper and the
// aligner measure it); wrapText swaps each for a linkSegment as it hands them to its RichText.

// linkSegment draws a HyperlinkSegment as a menuLink.
type linkSegment struct{ *widget.HyperlinkSegment }

// Visual is the link, its text where a RichText puts a text run, as Fyne's segment does. A
// RichText lines a row's runs up on their baselines, and it knows the baseline of a link
// only when the first object in the link's container is a *widget.Hyperlink (textRenderer.
// layoutRow); so that first object is a hidden Hyperlink with the same text, measured and
// never drawn or clicked, and the menuLink after it is the one shown.
func (l *linkSegment) Visual() fyne.CanvasObject {
	twin := widget.NewHyperlink(l.Text, l.URL)
	twin.Hide()
	link := newMenuLink(l.Text, l.URL)
	link.Alignment = l.Alignment
	return &fyne.Container{Layout: unpadLayout{}, Objects: []fyne.CanvasObject{twin, link}}
}

// Update shows the segment's current text and address.
func (l *linkSegment) Update(o fyne.CanvasObject) {
	objs := o.(*fyne.Container).Objects
	objs[0].(*widget.Hyperlink).Text = l.Text
	link := objs[1].(*menuLink)
	link.Text, link.URL, link.Alignment = l.Text, l.URL, l.Alignment
	link.Refresh()
}

// unpadLayout places the shown link (the last object) so that its text lines up with a
// RichText's runs: a Hyperlink is padded, a text run is not.
type unpadLayout struct{}

func (unpadLayout) Layout(o []fyne.CanvasObject, s fyne.Size) {
	p := theme.InnerPadding()
	o[len(o)-1].Move(fyne.NewPos(-p, -p))
	o[len(o)-1].Resize(s.AddWidthHeight(2*p, 2*p))
}

func (unpadLayout) MinSize(o []fyne.CanvasObject) fyne.Size {
	p := theme.InnerPadding()
	return o[len(o)-1].MinSize().SubtractWidthHeight(2*p, 2*p)
}

// menuLink is a Hyperlink with a right-click menu, also shown by keyboard. Used on the main
// goroutine only.
type menuLink struct {
	widget.Hyperlink
	shiftKey // Shift is held while the link has the keyboard (F10 then opens the menu)
}

func newMenuLink(text string, u *url.URL) *menuLink {
	l := &menuLink{}
	l.Text, l.URL = text, u
	l.ExtendBaseWidget(l)
	return l
}

// menuItems are Open link and Copy link address.
func (l *menuLink) menuItems() []*fyne.MenuItem {
	return []*fyne.MenuItem{
		fyne.NewMenuItem("Open link", l.open),
		fyne.NewMenuItem("Copy link address", func() {
			fyne.CurrentApp().Clipboard().SetContent(l.URL.String())
		}),
	}
}

// open does what a click does.
func (l *menuLink) open() {
	if l.OnTapped != nil {
		l.OnTapped()
		return
	}
	if err := fyne.CurrentApp().OpenURL(l.URL); err != nil {
		fyne.LogError("open link "+l.URL.String(), err)
	}
}

// TappedSecondary shows the link's menu.
func (l *menuLink) TappedSecondary(e *fyne.PointEvent) { l.showMenu(e.AbsolutePosition) }

// showMenu shows the link's menu at pos (canvas coordinates), with the keyboard in it (up,
// down, Enter, Esc).
func (l *menuLink) showMenu(pos fyne.Position) {
	c := fyne.CurrentApp().Driver().CanvasForObject(l)
	if c == nil || l.URL == nil {
		return
	}
	widget.ShowPopUpMenuAtPosition(fyne.NewMenu("", l.menuItems()...), c, pos)
}

// The same menu by keyboard on a focused link, as desktop apps have it: the Menu key or
// Shift+F10 (the window's key table lists them). A Shift with no Ctrl or Alt makes no
// shortcut in Fyne: F10 reaches TypedKey alone, so the link notes Shift's key-down itself.

// FocusLost forgets Shift: its key-up may go to another object.
func (l *menuLink) FocusLost() {
	l.shift = false
	l.Hyperlink.FocusLost()
}

// TypedKey shows the menu under the link for the Menu key and Shift+F10; Space opens the
// link, as Fyne's Hyperlink does.
func (l *menuLink) TypedKey(e *fyne.KeyEvent) {
	if e.Name == desktop.KeyMenu || e.Name == fyne.KeyF10 && l.shift {
		d := fyne.CurrentApp().Driver()
		l.showMenu(d.AbsolutePositionForObject(l).Add(fyne.NewPos(theme.InnerPadding(), l.Size().Height)))
		return
	}
	l.Hyperlink.TypedKey(e)
}

// linkMenus hands out the linkSegment of each HyperlinkSegment, the same one each time (a
// RichText keeps a segment's drawn objects by the segment).
type linkMenus map[*widget.HyperlinkSegment]*linkSegment

// swap returns segs with each HyperlinkSegment, also inside paragraphs and lists, replaced
// by its linkSegment; segs itself is not changed.
func (m linkMenus) swap(segs []widget.RichTextSegment) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, len(segs))
	for i, s := range segs {
		switch s := s.(type) {
		case *widget.HyperlinkSegment:
			l := m[s]
			if l == nil {
				l = &linkSegment{s}
				m[s] = l
			}
			out[i] = l
		case *widget.ParagraphSegment:
			out[i] = &widget.ParagraphSegment{Texts: m.swap(s.Texts)}
		case *widget.ListSegment:
			l := *s // with its start number
			l.Items = m.swap(s.Items)
			out[i] = &l
		default:
			out[i] = s
		}
	}
	return out
}
