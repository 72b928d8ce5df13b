package ui

import (
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// Every run of text starts on a whole device pixel, so the painter draws it at its own size
// (a run after a bold or code run started between pixels and was drawn lighter), at the
// display scales Windows offers.
func TestRunsStartOnWholePixels(t *testing.T) {
	test.NewTempApp(t)
	runs := 0
	for _, scale := range []float32{1, 1.25, 1.5} {
		for _, tc := range mdCases {
			wt := newWrapText(markdownSegments(tc.src))
			w := test.NewTempWindow(t, wt)
			w.Canvas().(test.WindowlessCanvas).SetScale(scale)
			for width := float32(150); width <= 480; width += 33 {
				w.Resize(fyne.NewSize(width, 900))
				for _, o := range test.WidgetRenderer(wt.rt).Objects() {
					txt, ok := o.(*canvas.Text)
					if !ok || txt.Text == "" {
						continue
					}
					runs++
					if px := txt.Position().X * scale; math.Abs(float64(px)-math.Round(float64(px))) > 0.01 {
						t.Errorf("%s at scale %.2f, width %.0f: %q starts at %.3f px", tc.name, scale, width, txt.Text, px)
					}
				}
			}
		}
	}
	if runs == 0 {
		t.Fatal("no text drawn")
	}
}

// Every row of a reply starts on a whole device pixel, and the text is a whole number of
// pixels tall, at the display scales Windows offers: RichText stacked rows at the text's
// height (19.078 units), so ~8% of the rows at scale 1 started between two pixels and were
// drawn a pixel taller.
func TestRowsStartOnWholePixels(t *testing.T) {
	test.NewTempApp(t)
	rows := 0
	whole := func(v, scale float32) bool {
		px := float64(v * scale)
		return math.Abs(px-math.Round(px)) < 0.01
	}
	for _, scale := range []float32{1, 1.25, 1.5} {
		for _, tc := range mdCases {
			wt := newWrapText(markdownSegments(tc.src + "\n\nA last line, after the " + tc.name + "."))
			w := test.NewTempWindow(t, wt)
			w.Canvas().(test.WindowlessCanvas).SetScale(scale)
			for width := float32(150); width <= 480; width += 33 {
				w.Resize(fyne.NewSize(width, 900))
				if h := wt.MinSize().Height; !whole(h, scale) {
					t.Errorf("%s at scale %.2f, width %.0f: the text is %.3f px tall", tc.name, scale, width, h*scale)
				}
				objs := test.WidgetRenderer(wt.rt).Objects()
				for _, o := range objs {
					if inlineCode(o, objs) {
						continue // lined up on the row's baseline by RichText, below the row's top
					}
					if txt, ok := o.(*canvas.Text); ok && txt.Text == "" || !o.Visible() {
						continue
					}
					if _, gap := o.(*canvas.Rectangle); gap {
						continue // pixelGap, pixelStrut: nothing drawn
					}
					rows++
					if !whole(o.Position().Y, scale) {
						t.Errorf("%s at scale %.2f, width %.0f: %T %q starts at y %.3f px", tc.name, scale, width, o, textOf(o), o.Position().Y*scale)
					}
				}
			}
		}
	}
	if rows == 0 {
		t.Fatal("no text drawn")
	}
}

// inlineCode reports whether o is a monospace run in a row of proportional text (RichText
// moves it down by the difference of the fonts' baselines, which is not ours to round).
func inlineCode(o fyne.CanvasObject, objs []fyne.CanvasObject) bool {
	t, ok := o.(*canvas.Text)
	if !ok || !t.TextStyle.Monospace {
		return false
	}
	for _, p := range objs {
		if u, ok := p.(*canvas.Text); ok && !u.TextStyle.Monospace {
			if d := t.Position().Y - u.Position().Y; d > 0 && d < t.MinSize().Height/2 {
				return true
			}
		}
	}
	return false
}

func textOf(o fyne.CanvasObject) string {
	if t, ok := o.(*canvas.Text); ok {
		return t.Text
	}
	return ""
}

// The rows of a conversation's text start on whole pixels of the window, not only of their
// reply: the replies sit below labels and buttons of fractional heights, in a view that
// scrolls. Checked when the conversation opens (at its end) and after the wheel scrolled it.
func TestTranscriptRowsOnWholePixels(t *testing.T) {
	for _, scale := range []float32{1, 1.25, 1.5} {
		vm, _, st := newTestChat(t, nil)
		d := newQueuedApp(t)
		id := savedConversation(t, st)
		w := test.NewTempWindow(t, nil)
		w.Canvas().(test.WindowlessCanvas).SetScale(scale)
		v := NewChatView(vm, w, func() {})
		w.SetContent(v.Content)
		w.Resize(fyne.NewSize(700, 600))
		d.run()
		frame(w)
		if err := vm.Open(id); err != nil {
			t.Fatal(err)
		}
		for range 4 {
			d.run()
			frame(w)
		}
		v.waitOlder()
		d.run()
		frame(w)
		check := func(when string) {
			rows, bad := 0, 0
			walkText(w.Content(), fyne.Position{}, false, nil, func(txt *canvas.Text, abs fyne.Position, siblings []fyne.CanvasObject) {
				if txt.Text == "" || inlineCode(txt, siblings) {
					return
				}
				rows++
				if px := float64(abs.Y * scale); math.Abs(px-math.Round(px)) > 0.01 {
					if bad++; bad <= 5 {
						t.Errorf("scale %.2f, %s: %q at y %.3f px", scale, when, txt.Text, px)
					}
				}
			})
			if rows < 50 {
				t.Fatalf("scale %.2f, %s: %d rows of text found, want the conversation's", scale, when, rows)
			}
			if bad > 5 {
				t.Errorf("scale %.2f, %s: %d of %d rows between two pixels", scale, when, bad, rows)
			}
		}
		check("at the end")
		v.scroll.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 37.3}})
		frame(w)
		check("after the wheel")
	}
}

// walkText calls fn with each text of the transcript's reading text (replies, code, the
// user's messages) and where it is in the window; inText says o is inside such a text.
func walkText(o fyne.CanvasObject, at fyne.Position, inText bool, siblings []fyne.CanvasObject, fn func(*canvas.Text, fyne.Position, []fyne.CanvasObject)) {
	if !o.Visible() {
		return
	}
	abs := at.Add(o.Position())
	switch c := o.(type) {
	case *canvas.Text:
		if inText {
			fn(c, abs, siblings)
		}
	case *fyne.Container:
		for _, k := range c.Objects {
			walkText(k, abs, inText, c.Objects, fn)
		}
	case fyne.Widget:
		switch c.(type) {
		case *wrapText, *codeBlock, *selectText:
			inText = true
		case *widget.Button, *tipButton:
			inText = false
		}
		objs := test.WidgetRenderer(c).Objects()
		for _, k := range objs {
			walkText(k, abs, inText, objs, fn)
		}
	}
}

// The welcome page's text, bold runs and all, is drawn with every run on a whole pixel (Fyne's
// own Markdown drew "EdgeChat looks for models…" after the bold "Find or download one:"
// lighter, a fraction of a pixel off).
func TestWelcomeRunsOnWholePixels(t *testing.T) {
	for _, scale := range []float32{1, 1.25} {
		test.NewTempApp(t)
		vm := NewWelcomeVM(&memSettings{})
		v := NewWelcomeView(vm, test.NewTempWindow(t, nil), func() {})
		w := test.NewTempWindow(t, v.Content)
		w.Canvas().(test.WindowlessCanvas).SetScale(scale)
		w.Resize(fyne.NewSize(900, 600))
		runs := 0
		walkText(w.Content(), fyne.Position{}, true, nil, func(txt *canvas.Text, abs fyne.Position, _ []fyne.CanvasObject) {
			if txt.Text == "" || !strings.Contains(welcomeText, strings.TrimSpace(txt.Text)) {
				return
			}
			runs++
			if px := float64((abs.X - w.Content().Position().X) * scale); math.Abs(px-math.Round(px)) > 0.01 {
				t.Errorf("scale %.2f: %q starts at x %.3f px", scale, txt.Text, px)
			}
		})
		if runs < 5 {
			t.Fatalf("scale %.2f: %d runs of the welcome text found", scale, runs)
		}
	}
}
