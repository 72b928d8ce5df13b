package pdftext

import (
	"math"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Marked content with an ActualText (BDC with /ActualText in its properties … EMC) says what
// the glyphs inside stand for. Fonts for complex scripts (Myanmar, Arabic Nastaliq, Khmer)
// draw marks before their base, ligatures and contextual forms whose own characters come out
// in the wrong order or not at all; LibreOffice and others then write each cluster's text as
// ActualText. As poppler does, the glyphs drawn inside such a span are replaced by its text,
// as wide as the glyphs drawn, on the first glyph's baseline from where the leftmost starts
// (a Nastaliq letter drawn right to left, a piece without advance first, would otherwise
// stand a letter's width right of its place and part its word); a span that draws no glyph
// gives no text.

// markedSpan is one open BDC/BMC; text is set for an ActualText span.
type markedSpan struct {
	actual bool
	text   string
	drawn  bool    // a glyph was drawn inside
	hidden bool    // optional content turned off (optional.go)
	first  glyph   // the first glyph drawn inside (its place)
	x0, x1 float32 // where the glyphs drawn inside start and end, along the text direction
}

// beginMarked handles BDC (properties inline or named in the resources' /Properties) and BMC.
func (p *page) beginMarked(op string, args []operand, rs *resources) {
	if len(p.marked) >= maxNesting {
		return
	}
	span := markedSpan{hidden: p.inHidden()}
	if op == "BDC" && len(args) >= 2 && args[0].kind == kName && args[0].str == "OC" && args[1].kind == kName {
		span.hidden = span.hidden || p.doc.hidden(rs.v.Key("Properties").Key(args[1].str))
	}
	if op == "BDC" && len(args) >= 1 {
		props := args[len(args)-1]
		switch props.kind {
		case kDict:
			for i := 0; i+1 < len(props.arr); i += 2 {
				if k := props.arr[i]; k.kind == kName && k.str == "ActualText" && props.arr[i+1].kind == kString {
					span.actual, span.text = true, textString(props.arr[i+1].str)
				}
			}
		case kName:
			if v := rs.v.Key("Properties").Key(props.str).Key("ActualText"); v.Kind() != 0 {
				span.actual, span.text = true, textString(v.RawString())
			}
		}
	}
	// An ActualText inside another one is part of the outer text already.
	if span.actual && p.inActual() {
		span.actual = false
	}
	p.marked = append(p.marked, span)
}

// endMarked handles EMC: an ActualText span's text becomes one glyph in place of those drawn.
func (p *page) endMarked() error {
	n := len(p.marked)
	if n == 0 {
		return nil
	}
	span := p.marked[n-1]
	p.marked = p.marked[:n-1]
	if !span.actual || !span.drawn {
		return nil
	}
	text := cleanText(span.text)
	if text == "" {
		return nil
	}
	if len(p.glyphs) >= maxGlyphs {
		return errGlyphs
	}
	g := span.first
	g.x = min(g.x, span.x0) // a cluster drawn right to left starts at its leftmost glyph
	g.text, g.w = text, float32(math.Max(0, float64(span.x1-g.x)))
	g.space, g.actual = strings.TrimSpace(text) == "", true
	p.glyphs = append(p.glyphs, g)
	return nil
}

// inActual reports whether glyphs drawn now are inside an ActualText span.
// inHidden says whether the glyphs drawn now are in a layer turned off.
func (p *page) inHidden() bool {
	return len(p.marked) > 0 && p.marked[len(p.marked)-1].hidden
}

func (p *page) inActual() bool {
	for i := range p.marked {
		if p.marked[i].actual {
			return true
		}
	}
	return false
}

// swallow records a glyph drawn inside an ActualText span instead of keeping it.
func (p *page) swallow(g glyph) {
	for i := range p.marked {
		if s := &p.marked[i]; s.actual {
			if !s.drawn {
				s.drawn, s.first, s.x0 = true, g, g.x
			}
			s.x0 = min(s.x0, g.x)
			s.x1 = max(s.x1, g.x+g.w)
			return
		}
	}
}

// textString decodes a PDF text string: UTF-16BE or UTF-8 after their byte order marks, else
// PDFDocEncoding.
func textString(s string) string {
	switch {
	case strings.HasPrefix(s, "\xFE\xFF"):
		b := s[2:]
		u := make([]uint16, 0, len(b)/2)
		for i := 0; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		}
		return string(utf16.Decode(u))
	case strings.HasPrefix(s, "\xEF\xBB\xBF"):
		return strings.ToValidUTF8(s[3:], "\uFFFD")
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x18 && c <= 0x1F:
			b.WriteRune(pdfDocLow[c-0x18])
		case c >= 0x80 && c <= 0xA0:
			b.WriteRune(pdfDocHigh[c-0x80])
		default:
			b.WriteRune(rune(c)) // ASCII and Latin-1 agree with PDFDocEncoding elsewhere
		}
	}
	return b.String()
}

// PDFDocEncoding where it differs from Latin-1 (PDF 32000-1, Annex D.2).
var (
	pdfDocLow  = [8]rune{'˘', 'ˇ', 'ˆ', '˙', '˝', '˛', '˚', '˜'}
	pdfDocHigh = [33]rune{'•', '†', '‡', '…', '—', '–', 'ƒ', '⁄', '‹', '›', '−', '‰', '„', '“', '”', '‘',
		'’', '‚', '™', 'ﬁ', 'ﬂ', 'Ł', 'Œ', 'Š', 'Ÿ', 'Ž', 'ı', 'ł', 'œ', 'š', 'ž', utf8.RuneError, '€'}
)
