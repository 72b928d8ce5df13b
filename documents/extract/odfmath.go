package extract

import (
	"encoding/xml"
	"errors"
	"strings"
	"unicode"
)

// mathText reads a MathML formula from XML tokens as the HTML reader reads one
// (foreign.go): its tokens' text run together ("E=m⋅c2"), an mtext's words with their
// spaces, a table's cells apart, annotations (LibreOffice's StarMath source, TeX) and invisible operators
// (U+2061–2064) left out.
type mathText struct {
	// depth counts the open elements of the formula, skip those of an annotation, mtext
	// the open mtext elements.
	depth, skip, mtext int
	b                  strings.Builder
}

// start takes a start element inside the formula (the math element included).
func (m *mathText) start(t xml.StartElement) {
	m.depth++
	switch {
	case m.skip > 0 || t.Name.Local == "annotation" || t.Name.Local == "annotation-xml":
		m.skip++
	case t.Name.Local == "mtext":
		m.mtext++
		m.b.WriteByte(' ')
	case mathCell(t.Name.Local):
		m.b.WriteByte(' ')
	}
}

// end takes an end element; it reports whether the formula ended.
func (m *mathText) end(t xml.EndElement) bool {
	m.depth--
	switch {
	case m.skip > 0:
		m.skip--
	case t.Name.Local == "mtext" && m.mtext > 0:
		m.mtext--
		m.b.WriteByte(' ')
	case mathCell(t.Name.Local):
		m.b.WriteByte(' ')
	}
	return m.depth <= 0
}

func (m *mathText) text(data []byte) {
	if m.skip > 0 {
		return
	}
	if m.mtext > 0 {
		m.b.Write(data)
		return
	}
	m.b.WriteString(strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r >= '\u2061' && r <= '\u2064' {
			return -1
		}
		return r
	}, string(data)))
}

// String is the formula's text, its spaces folded.
func (m *mathText) String() string { return strings.Join(strings.Fields(m.b.String()), " ") }

// odfObjectMath reads the formula of an embedded object (draw:object's xlink:href, "./Object
// 1": its content.xml), "" if the object is not a formula (a chart, a spreadsheet) or is
// missing or damaged.
func odfObjectMath(a *archive, href string) (string, error) {
	if href == "" || strings.Contains(href, ":") { // a linked file elsewhere
		return "", nil
	}
	part := resolve("", strings.TrimSuffix(href, "/")+"/content.xml")
	if !a.has(part) {
		return "", nil
	}
	var m *mathText
	err := a.walkXML(part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			if m == nil && t.Name.Local == "math" {
				m = &mathText{}
			}
			if m != nil && m.depth >= 0 {
				m.start(t)
			}
		case xml.EndElement:
			if m != nil && m.depth > 0 && m.end(t) {
				m.depth = -1 // the formula ended: nothing after it is read
			}
		case xml.CharData:
			if m != nil && m.depth > 0 {
				m.text(t)
			}
		}
		return nil
	})
	if m == nil || err != nil && !errors.Is(err, ErrCorrupt) {
		return "", err
	}
	return m.String(), nil
}

// ownPara makes s a paragraph of its own when no paragraph is open (a formula or a chart
// standing alone on a slide or in a frame), and reports whether it did.
func (w *odfWalker) ownPara(s string) bool {
	if w.para() != nil {
		return false
	}
	p := &odfPara{}
	p.text.WriteString(s)
	w.endPara(p)
	return true
}

// addMath puts a formula's text where it stands: in the paragraph open, apart from the
// words on either side (not from a comma or stop after it), else as a paragraph of its own.
func (w *odfWalker) addMath(s string) {
	if s == "" {
		return
	}
	if w.ownPara(s) {
		return
	}
	p := w.para()
	if !p.space {
		p.text.WriteByte(' ')
	}
	p.text.WriteString(s)
	p.space, p.afterMath = false, true
}
