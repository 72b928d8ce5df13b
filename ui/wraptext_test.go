package ui

import (
	"net/url"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// A link wider than the column (a long bare URL, or link text of U+FFFD from a random model)
// is cut into rows of links to the same place: it was one unbreakable row that ran past the
// column's right edge. A re-wrap at the same width gives the same segments (their menus).
func TestLongLinkStaysInColumn(t *testing.T) {
	test.NewTempApp(t)
	u, _ := url.Parse("https://example.com/a")
	text := "link" + strings.Repeat("\uFFFD", 120)
	link := &widget.HyperlinkSegment{Text: text, URL: u}
	wt := newWrapText([]widget.RichTextSegment{&widget.ParagraphSegment{Texts: []widget.RichTextSegment{
		&widget.TextSegment{Style: widget.RichTextStyleInline, Text: "See "}, link}}})
	w := test.NewTempWindow(t, wt)
	const width = 300
	w.Resize(fyne.NewSize(width, 800))
	d := fyne.CurrentApp().Driver()
	for _, o := range test.LaidOutObjects(wt) {
		if tx, ok := o.(*canvas.Text); ok && tx.Text != "" {
			if end := d.AbsolutePositionForObject(tx).X + fyne.MeasureText(tx.Text, tx.TextSize, tx.TextStyle).Width; end > width {
				t.Errorf("%.20q… ends at x=%.0f, past the column's %d", tx.Text, end, width)
			}
		}
	}
	pieces := func() (spelled string, segs []*widget.HyperlinkSegment) {
		for _, s := range wt.rt.Segments[0].(*widget.ParagraphSegment).Texts {
			if l, ok := s.(*linkSegment); ok {
				if l.URL != u {
					t.Errorf("piece %q goes to %v, want %v", l.Text, l.URL, u)
				}
				spelled += l.Text
				segs = append(segs, l.HyperlinkSegment)
			}
		}
		return spelled, segs
	}
	spelled, first := pieces()
	if spelled != text || len(first) < 2 {
		t.Fatalf("the link's %d pieces spell %q, want %q", len(first), spelled, text)
	}
	wt.rewrap()
	if _, again := pieces(); len(again) != len(first) || again[0] != first[0] {
		t.Error("a re-wrap at the same width made new link segments")
	}
}
