package ui

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// oneUnit measures every character as 1 wide.
func oneUnit(s string, _ widget.RichTextStyle) float32 { return float32(utf8.RuneCountInString(s)) }

func rowTexts(text string, rows []textRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, text[r.start:r.end])
	}
	return out
}

func TestWrapRows(t *testing.T) {
	for _, tc := range []struct {
		name  string
		text  string
		width float32
		want  []string
	}{
		{"empty", "", 10, []string{""}},
		{"fits", "hello world", 20, []string{"hello world"}},
		{"at a space", "hello world", 7, []string{"hello", "world"}},
		{"spaces between rows", "a   b", 2, []string{"a", "b"}},
		{"line breaks kept", "x\n\ny", 10, []string{"x", "", "y"}},
		{"spaces before a line break stay", "a  \nb", 1, []string{"a  ", "b"}},
		{"long word", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"wide characters", "日本語です", 2, []string{"日本", "語で", "す"}},
		{"punctuation stays", "**Both**. Then", 9, []string{"**Both**.", "Then"}},
		{"no width: only line breaks", "one two\nthree", 0, []string{"one two", "three"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := wrapRows(tc.text, tc.width, oneUnit)
			if got := rowTexts(tc.text, rows); !slices.Equal(got, tc.want) {
				t.Errorf("rows %q, want %q", got, tc.want)
			}
			// Between rows lies only white space: nothing of the text is lost.
			prev := 0
			for _, r := range rows {
				if gap := tc.text[prev:r.start]; strings.TrimSpace(gap) != "" {
					t.Errorf("text %q between rows is not shown", gap)
				}
				prev = r.end
			}
			if prev != len(tc.text) {
				t.Errorf("the rows end at %d of %d bytes", prev, len(tc.text))
			}
		})
	}
}

// selectWindow shows s in a window of the given width.
func selectWindow(t *testing.T, s *selectText, width float32) fyne.Window {
	t.Helper()
	test.NewTempApp(t)
	w := test.NewTempWindow(t, s)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(width, 400))
	return w
}

// posOf is the position of text offset o in s (the middle of its row, at its left edge).
func posOf(s *selectText, o int) fyne.Position {
	row := s.rowOf(o)
	x := s.measure(s.text[s.rows[row].start:o])
	return fyne.NewPos(theme.InnerPadding()+x, theme.InnerPadding()+(float32(row)+0.5)*s.rowHeight())
}

func TestSelectTextMouse(t *testing.T) {
	const text = "Hello **world**, a reply\nwith two lines"
	s := newSelectText(text, nil)
	w := selectWindow(t, s, 600)

	from, to := strings.Index(text, "**world**"), strings.Index(text, "two")
	s.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: posOf(s, from)}, Button: desktop.MouseButtonPrimary})
	s.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: posOf(s, to), AbsolutePosition: posOf(s, to)}})
	s.DragEnd()
	if got, want := s.Selected(), text[from:to]; got != want {
		t.Errorf("dragged over %q, want %q", got, want)
	}
	if w.Canvas().Focused() != s {
		t.Error("a click did not give the text the keyboard")
	}
	s.TypedShortcut(&fyne.ShortcutCopy{Clipboard: fyne.CurrentApp().Clipboard()})
	if got := fyne.CurrentApp().Clipboard().Content(); got != text[from:to] {
		t.Errorf("Ctrl+C copied %q, want %q", got, text[from:to])
	}

	s.DoubleTapped(&fyne.PointEvent{Position: posOf(s, strings.Index(text, "reply")+2)})
	if got := s.Selected(); got != "reply" {
		t.Errorf("double-click selected %q, want the word %q", got, "reply")
	}
}

func TestSelectTextKeys(t *testing.T) {
	const text = "Line one\nLine two"
	s := newSelectText(text, nil)
	w := selectWindow(t, s, 600)
	w.Canvas().Focus(s)
	escaped := false
	s.onEscape = func() { escaped = true }

	s.TypedShortcut(&fyne.ShortcutSelectAll{})
	if got := s.Selected(); got != text {
		t.Errorf("Ctrl+A selected %q, want all", got)
	}
	s.TypedKey(&fyne.KeyEvent{Name: fyne.KeyLeft}) // to the start of the selection
	s.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	s.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnd})
	s.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	s.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	if got := s.Selected(); got != text {
		t.Errorf("Shift+End, Shift+Down selected %q, want both lines", got)
	}
	s.TypedKey(&fyne.KeyEvent{Name: fyne.KeyHome})
	s.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyRight, Modifier: fyne.KeyModifierShift})
	s.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyRight, Modifier: fyne.KeyModifierShift})
	if got := s.Selected(); got != "Li" {
		t.Errorf("Home, Shift+Right twice selected %q, want %q", got, "Li")
	}

	// Read-only: typing, pasting and deleting change nothing.
	s.TypedRune('x')
	s.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
	s.TypedShortcut(&fyne.ShortcutPaste{Clipboard: fyne.CurrentApp().Clipboard()})
	if s.text != text {
		t.Errorf("text changed to %q", s.text)
	}
	s.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if !escaped {
		t.Error("Esc did not end the selection")
	}
}

// Wrapped, the text is as tall as its rows and grows when the window narrows.
func TestSelectTextWraps(t *testing.T) {
	text := strings.Repeat("word ", 40)
	s := newSelectText(text, nil)
	w := selectWindow(t, s, 800)
	wide := s.MinSize().Height
	w.Resize(fyne.NewSize(200, 400))
	if len(s.rows) < 4 || s.MinSize().Height <= wide {
		t.Errorf("at 200 wide: %d rows, height %.0f (at 800: %.0f)", len(s.rows), s.MinSize().Height, wide)
	}
	for _, r := range s.rows {
		if got := s.measure(text[r.start:r.end]); got > 200 {
			t.Errorf("row %q is %.0f wide in 200", text[r.start:r.end], got)
		}
	}
	// Each row is drawn on a whole pixel (else the painter scales it and it greys).
	for _, o := range test.WidgetRenderer(s).Objects() {
		if txt, ok := o.(*canvas.Text); ok {
			if y := float64(txt.Position().Y); y != math.Round(y) {
				t.Errorf("row %q drawn at y=%.3f", txt.Text, y)
			}
		}
	}
}

// FuzzWrapRows: at any width the rows cover the text in order, what lies between two rows
// is only white space (the wrap point's spaces or the "\n"), and a row wider than the width
// holds a single character.
func FuzzWrapRows(f *testing.F) {
	for _, s := range []string{"", "hello world", "a  \nb", "日本語です", "**Both**. Then", "x\n\ny", "\xff\xfe bad utf8", "\u3000wide\u3000space"} {
		f.Add(s, uint8(4))
	}
	f.Fuzz(func(t *testing.T, text string, width uint8) {
		w := float32(width % 40)
		rows := wrapRows(text, w, oneUnit)
		prev := 0
		for i, r := range rows {
			if r.start < prev || r.end < r.start || r.end > len(text) {
				t.Fatalf("row %d [%d,%d) after %d in %q", i, r.start, r.end, prev, text)
			}
			if i > 0 && strings.TrimSpace(text[prev:r.start]) != "" {
				t.Fatalf("%q between rows is lost", text[prev:r.start])
			}
			shown := strings.TrimRightFunc(text[r.start:r.end], unicode.IsSpace) // spaces before a "\n" stay on the row
			if w >= 1 && oneUnit(shown, widget.RichTextStyle{}) > w && utf8.RuneCountInString(shown) > 1 {
				t.Fatalf("row %q is wider than %.0f", text[r.start:r.end], w)
			}
			prev = r.end
		}
		if prev != len(text) {
			t.Fatalf("the rows end at %d of %d bytes of %q", prev, len(text), text)
		}
	})
}
