package extract

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// foreign is the HTML walker's state inside inline SVG and MathML, what the HTML standard
// calls foreign content.
//
// An SVG drawing's text is its text elements' (fixed-layout EPUBs made from PDFs draw every
// line of a page so); titles, descriptions and metadata, which are not drawn, are left out,
// and a foreignObject's HTML is read as HTML. Each text element, and each of its spans placed
// on another baseline, starts a line; a line that ends in a hyphen after a letter goes on
// into the next without a break ("res-" "tait" → "res-tait"), as pandoc reads it.
//
// A formula (MathML) reads as its tokens' text run together ("x=c2"), as pandoc reads an
// EPUB's, but for the cells of its tables (matrices), kept apart; its annotations, which
// repeat it in another notation, and its invisible operators (U+2061–2064) are left out.
// Names may carry a prefix ("m:math").
type foreign struct {
	// svg counts the open svg elements, svgText the text elements open inside them and
	// foreignObject their open foreignObject elements; svgY is the baseline (y) of the
	// text element's last placed span.
	svg, svgText, foreignObject int
	svgY                        string
	// math counts the open math elements and mtext the open mtext elements in them, whose
	// words keep their spaces; mathBlock says the outermost formula is displayed as a block.
	math, mtext int
	mathBlock   bool
}

// inForeign reports whether text tokens are read by foreignText.
func (f *foreign) inForeign() bool { return f.svg > 0 && f.foreignObject == 0 || f.math > 0 }

// foreignText is the part of a text token inside SVG or MathML that is read.
func (f *foreign) foreignText(s string) string {
	switch {
	case f.svg > 0 && f.foreignObject == 0:
		if f.svgText == 0 {
			return ""
		}
		return s
	case f.mtext > 0:
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r >= '\u2061' && r <= '\u2064' { // invisible times, function application…
			return -1
		}
		return r
	}, s)
}

// foreignStart takes a start tag that begins or stands inside SVG or MathML; it reports
// false for those the HTML walker handles (style and script, skipped; annotations, skipped;
// a foreignObject's HTML).
func (w *htmlWalker) foreignStart(t html.Token) bool {
	open := t.Type != html.SelfClosingTagToken
	name, a := localName(t.Data), t.DataAtom
	if name != t.Data { // a prefixed name: "m:math", "svg:text"
		a = atom.Lookup([]byte(name))
	}
	switch {
	case a == atom.Svg:
		w.inHead = false
		if open {
			w.svg++
		}
		return true
	case a == atom.Math && w.svg == 0:
		w.inHead = false
		if open {
			if w.math++; w.math == 1 {
				w.mathBlock = tokenAttr(t, "display") == "block"
				if w.mathBlock {
					w.cur.WriteString("\n")
				}
			}
		}
		return true
	}
	switch {
	case w.svg > 0 && w.foreignObject == 0:
		switch name {
		case "style", "script":
			return false
		case "text":
			if open {
				w.svgText++
				w.svgY = tokenAttr(t, "y")
				w.svgLine()
			}
		case "tspan":
			y, dy := tokenAttr(t, "y"), tokenAttr(t, "dy")
			if w.svgText > 0 && (y != "" && y != w.svgY || dy != "" && !isZero(dy)) {
				if y != "" {
					w.svgY = y
				}
				w.svgLine()
			}
		case "foreignobject":
			if open {
				w.foreignObject++
			}
		}
		return true
	case w.math > 0:
		switch a {
		case atom.Annotation, atom.AnnotationXml:
			if open {
				w.skip = append(w.skip, a)
			}
		case atom.Mtext:
			if open {
				w.mtext++
			}
			w.text(" ")
		}
		if mathCell(name) {
			w.text(" ")
		}
		return true
	}
	return false
}

// mathCell says whether a MathML element is a row or cell of a table (a matrix, aligned
// equations), whose entries are kept apart by a space: "a b c d" for the matrix of rows
// a b and c d, not one word "abcd".
func mathCell(name string) bool { return name == "mtd" || name == "mtr" || name == "mlabeledtr" }

// foreignEnd takes an end tag inside SVG or MathML, reporting false for those the HTML
// walker handles.
func (w *htmlWalker) foreignEnd(name string) bool {
	name = localName(name)
	switch {
	case name == "svg" && w.svg > 0:
		if w.svg--; w.svg == 0 {
			w.svgText, w.foreignObject = 0, 0
		}
		return true
	case name == "math" && w.math > 0 && w.svg == 0:
		if w.math--; w.math == 0 {
			w.mtext = 0
			if w.mathBlock {
				w.cur.WriteString("\n")
			}
		}
		return true
	case name == "foreignobject" && w.foreignObject > 0:
		w.foreignObject--
		return true
	case w.svg > 0 && w.foreignObject == 0:
		if name == "text" && w.svgText > 0 {
			w.svgText--
			w.svgLine()
		}
		return true
	case w.math > 0:
		if name == "mtext" && w.mtext > 0 {
			w.mtext--
			w.text(" ")
		}
		if mathCell(name) {
			w.text(" ")
		}
		return true
	}
	return false
}

// svgLine ends a line of an SVG drawing's text, unless it ends in a hyphen after a letter.
func (w *htmlWalker) svgLine() {
	s := w.cur.String()
	if w.heading > 0 {
		s = w.headingText.String()
	}
	if r, n := utf8.DecodeLastRuneInString(s); r == '-' {
		if r, _ := utf8.DecodeLastRuneInString(s[:len(s)-n]); unicode.IsLetter(r) {
			return
		}
	}
	w.text("\n")
}

// localName is an element's name without its namespace prefix.
func localName(name string) string {
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func tokenAttr(t html.Token, key string) string {
	for _, a := range t.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// isZero reports whether an SVG length ("0", "0px", "0.0em") is zero.
func isZero(s string) bool {
	s = strings.TrimRightFunc(strings.TrimSpace(s), unicode.IsLetter)
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && v == 0
}
