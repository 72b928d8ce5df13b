package extract

import (
	"encoding/xml"
	"strconv"
)

// odfParaStyle is what a paragraph style (style:style of the paragraph family) says about
// numbering: the style it inherits from, and its list style where it names one ("" names
// none: LibreOffice writes style:list-style-name="" on a heading style it leaves out of
// the heading numbering).
type odfParaStyle struct {
	parent  string
	list    string
	hasList bool
}

// paraStyle takes a style:style element of a styles part.
func (s *odfListStyles) paraStyle(t xml.StartElement) {
	if t.Name.Space != "style" || attr(t, "family") != "paragraph" {
		return
	}
	if s.paras == nil {
		s.paras = map[string]odfParaStyle{}
	}
	p := odfParaStyle{parent: attr(t, "parent-style-name")}
	for _, a := range t.Attr {
		if a.Name.Local == "list-style-name" {
			p.list, p.hasList = a.Value, true
		}
	}
	s.paras[attr(t, "name")] = p
}

// headingNumbered reports whether a heading of the named paragraph style takes the heading
// numbering: unless the style or one it inherits from names another list style, or none.
func (s *odfListStyles) headingNumbered(name string) bool {
	for range 20 { // a chain of styles, bounded: a loop of parents is a damaged file
		p, ok := s.paras[name]
		if !ok {
			return true
		}
		if p.hasList {
			return p.list != "" && s.styles[p.list] == s.outline
		}
		name = p.parent
	}
	return true
}

// heading counts a heading (text:h outside lists) of outline level 1–10 and returns the
// label LibreOffice's heading numbering (Tools ▸ Heading Numbering, text:outline-style)
// draws before it: the level's number in its format, with the numbers of the levels above
// it it displays ("2.1"), its prefix and suffix ("Chapter 2:"). A heading of a level counts
// on from the last of its level since one above it, starting at the level's start value;
// text:restart-numbering starts it again, text:start-value at that value (a negative one is
// none: the level's start);
// text:is-list-header keeps it out of the count, unnumbered, as a style that leaves it out
// of the heading numbering does.
func (l *odfLists) heading(t xml.StartElement, level int) string {
	style := l.styles.outline
	if style == nil || attr(t, "is-list-header") == "true" || !l.styles.headingNumbered(attr(t, "style-name")) {
		return ""
	}
	v, ok := startValue(t)
	return style.count(min(max(level, 1), 10)-1, &l.outline, v, ok, attr(t, "restart-numbering") == "true")
}

// startValue reads an element's text:start-value, which ODF's schema makes a non-negative
// integer; anything else (odfdo's base_text.odt has "-1") counts as no value, and the count
// goes on, or starts again, from the level's start.
func startValue(t xml.StartElement) (int, bool) {
	v, err := strconv.Atoi(attr(t, "start-value"))
	return v, err == nil && v >= 0
}
