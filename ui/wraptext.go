package ui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"golang.org/x/text/width"
)

// wrapText shows rich text wrapped at word boundaries by this package rather than by Fyne.
// Fyne's RichText word wrap breaks a segment that starts mid-row inside its first word when
// that word does not fit the rest of the row ("**Both**." at the end of a row showed "B",
// "o", "t", "h." on four rows; "fun.\nAs she" showed "fun. A s", a blank row, "she"). So the
// RichText inside runs with wrapping off and gets copies of the segments with a "\n" put at
// each wrap point, recomputed when the width changes.
type wrapText struct {
	widget.BaseWidget
	src    []widget.RichTextSegment // as rendered from Markdown, without wrap points
	rt     *widget.RichText
	width  float32
	links  linkMenus                              // the links' right-click menus (linkmenu.go)
	blocks map[widget.RichTextSegment]*pixelBlock // the blocks at whole-pixel heights (pixelalign.go)
	pieces map[linkPiece]*widget.HyperlinkSegment // links too long for a row, cut (splitLink)
}

func newWrapText(segs []widget.RichTextSegment) *wrapText {
	w := &wrapText{rt: widget.NewRichText(), links: linkMenus{}}
	w.ExtendBaseWidget(w)
	w.set(segs)
	return w
}

// set shows segs (the caller does not change them afterwards).
func (w *wrapText) set(segs []widget.RichTextSegment) {
	w.src = segs
	w.links = linkMenus{} // the old segments' links are gone
	w.blocks = map[widget.RichTextSegment]*pixelBlock{}
	w.pieces = map[linkPiece]*widget.HyperlinkSegment{}
	w.rewrap()
}

func (w *wrapText) rewrap() {
	pad := 2 * theme.InnerPadding()
	segs := w.src
	if w.width > pad {
		wr := &wrapper{width: w.width - pad - 1, measure: measureText, pieces: w.pieces}
		segs = wr.segments(w.src)
	}
	w.rt.Segments = w.links.swap(alignRuns(segs, pixelScale(w), w.blocks))
	w.rt.Refresh()
}

// MinSize is as narrow as a wrapped text and as tall as the text wrapped at the current width.
func (w *wrapText) MinSize() fyne.Size {
	return fyne.NewSize(2*theme.InnerPadding()+theme.TextSize(), w.rt.MinSize().Height)
}

// Resize re-wraps the text when the width changes.
func (w *wrapText) Resize(s fyne.Size) {
	if s.Width != w.width {
		w.width = s.Width
		old := w.rt.MinSize().Height
		w.rewrap()
		if w.rt.MinSize().Height != old {
			defer canvas.Refresh(w) // the parents lay out again for the new height
		}
	}
	w.BaseWidget.Resize(s)
}

func (w *wrapText) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(w.rt) }

// measureText is the drawn width of s in a segment's style.
func measureText(s string, st widget.RichTextStyle) float32 {
	size := theme.TextSize()
	if st.SizeName != "" {
		size = theme.Size(st.SizeName)
	}
	return fyne.MeasureText(s, size, st.TextStyle).Width
}

// wrapper places line breaks in segments so that no row is wider than width. A row goes on
// across inline segments and ends at a block segment or a "\n". A row breaks at the last
// space (or next to a wide character) before the word that overflows, which may lie in an
// earlier segment: "**really**?" is one word in two segments.
type wrapper struct {
	width   float32
	measure func(string, widget.RichTextStyle) float32
	x       float32                                // width used on the current row
	texts   []*pendingText                         // the text segments made, filled in by finish
	brk     *breakAt                               // the last place on this row where it may break
	since   float32                                // width of the row after brk
	wide    bool                                   // the last character written was wide (a break may follow)
	pieces  map[linkPiece]*widget.HyperlinkSegment // links cut to fit a row (splitLink)
}

type pendingText struct {
	seg *widget.TextSegment
	buf []byte
}

// breakAt is a break opportunity: bytes [from, to) of t (spaces, or nothing next to a wide
// character) become "\n".
type breakAt struct {
	t        *pendingText
	from, to int
}

// segments returns copies of segs with wrap points; segs are not changed.
func (w *wrapper) segments(segs []widget.RichTextSegment) []widget.RichTextSegment {
	out := w.walk(segs)
	for _, t := range w.texts {
		t.seg.Text = string(t.buf)
	}
	return out
}

func (w *wrapper) walk(segs []widget.RichTextSegment) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(segs))
	for _, s := range segs {
		switch s := s.(type) {
		case *widget.TextSegment:
			t := &pendingText{seg: &widget.TextSegment{Style: s.Style}}
			w.texts = append(w.texts, t)
			w.text(t, s.Text)
			out = append(out, t.seg)
			if !s.Style.Inline {
				w.newRow()
			}
		case *widget.ParagraphSegment:
			out = append(out, &widget.ParagraphSegment{Texts: w.walk(s.Texts)})
			if n := len(s.Texts); n > 0 && !s.Texts[n-1].Inline() {
				w.newRow()
			}
		case *widget.HyperlinkSegment:
			for _, s := range w.splitLink(s) {
				lw := w.measure(s.Text, widget.RichTextStyleInline) + 2*theme.InnerPadding()
				if w.x > 0 && w.x+lw > w.width {
					if w.brk != nil && w.since == 0 {
						w.applyBreak()
					} else {
						nl := &pendingText{seg: &widget.TextSegment{Style: widget.RichTextStyleInline}, buf: []byte{'\n'}}
						w.texts = append(w.texts, nl)
						out = append(out, nl.seg)
						w.newRow()
					}
				}
				out = append(out, s)
				w.x += lw
				w.since += lw
				w.wide = false
			}
		default:
			out = append(out, s)
			if !s.Inline() {
				w.newRow()
			}
		}
	}
	return out
}

// splitLink cuts a link wider than a whole row into links to the same place that each fit
// one (at least one character each): a link is one unbreakable widget, and a long one (a
// bare URL, or a run of U+FFFD in a random model's output) ran past the column's right edge.
// The pieces are kept in w.pieces, so that the same cut gives the same segments (their
// right-click menus are kept per segment).
func (w *wrapper) splitLink(s *widget.HyperlinkSegment) []*widget.HyperlinkSegment {
	pad := 2 * theme.InnerPadding()
	if w.measure(s.Text, widget.RichTextStyleInline)+pad <= w.width {
		return []*widget.HyperlinkSegment{s}
	}
	var out []*widget.HyperlinkSegment
	for rest := s.Text; rest != ""; {
		n := 0
		for n < len(rest) {
			_, size := utf8.DecodeRuneInString(rest[n:])
			if n > 0 && w.measure(rest[:n+size], widget.RichTextStyleInline)+pad > w.width {
				break
			}
			n += size
		}
		out = append(out, w.piece(s, rest[:n]))
		rest = rest[n:]
	}
	return out
}

// linkPiece names a piece of a link cut by splitLink.
type linkPiece struct {
	link *widget.HyperlinkSegment
	text string
}

func (w *wrapper) piece(s *widget.HyperlinkSegment, text string) *widget.HyperlinkSegment {
	k := linkPiece{s, text}
	if p := w.pieces[k]; p != nil {
		return p
	}
	p := &widget.HyperlinkSegment{Alignment: s.Alignment, Text: text, URL: s.URL, OnTapped: s.OnTapped}
	if w.pieces != nil {
		w.pieces[k] = p
	}
	return p
}

func (w *wrapper) newRow() { w.x, w.brk, w.since, w.wide = 0, nil, 0, false }

// applyBreak turns the last break opportunity into a line break.
func (w *wrapper) applyBreak() {
	b := w.brk
	b.t.buf = append(b.t.buf[:b.from], append([]byte{'\n'}, b.t.buf[b.to:]...)...)
	w.x, w.brk = w.since, nil
}

// text appends s (one segment's text) to t, breaking rows as needed.
func (w *wrapper) text(t *pendingText, s string) {
	st := t.seg.Style
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == '\n':
			t.buf = append(t.buf, '\n')
			w.newRow()
			s = s[n:]
		case unicode.IsSpace(r):
			end := strings.IndexFunc(s, func(r rune) bool { return r == '\n' || !unicode.IsSpace(r) })
			if end < 0 {
				end = len(s)
			}
			from := len(t.buf)
			t.buf = append(t.buf, s[:end]...)
			w.x += w.measure(s[:end], st)
			w.brk, w.since, w.wide = &breakAt{t, from, len(t.buf)}, 0, false
			s = s[end:]
		default:
			word := s[:wordEnd(s)]
			s = s[len(word):]
			wide := isWide(r)
			if (wide || w.wide) && w.x > 0 {
				w.brk, w.since = &breakAt{t, len(t.buf), len(t.buf)}, 0
			}
			w.wide = wide
			ww := w.measure(word, st)
			if w.x+ww > w.width && w.brk != nil && w.since+ww <= w.width {
				w.applyBreak()
			}
			if w.x+ww <= w.width {
				t.buf = append(t.buf, word...)
				w.x += ww
				w.since += ww
				continue
			}
			for rest := word; rest != ""; { // longer than a row: break between characters
				_, n := utf8.DecodeRuneInString(rest)
				ch := rest[:n] // the bytes as written, even where they are not UTF-8
				rest = rest[n:]
				rw := w.measure(ch, st)
				if w.x > 0 && w.x+rw > w.width {
					t.buf = append(t.buf, '\n')
					w.newRow()
				}
				t.buf = append(t.buf, ch...)
				w.x += rw
				w.since += rw
			}
		}
	}
}

// wordEnd is the end of the word at the start of s: up to a space, or one wide character
// (a row may break before and after each CJK character).
func wordEnd(s string) int {
	for i, r := range s {
		if unicode.IsSpace(r) {
			return i
		}
		if isWide(r) {
			if i == 0 {
				_, n := utf8.DecodeRuneInString(s)
				return n
			}
			return i
		}
	}
	return len(s)
}

func isWide(r rune) bool {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return true
	}
	return false
}
