package extract

import "golang.org/x/net/html"

// epubSwitch is the HTML walker's state inside EPUB 3.0's epub:switch elements, which hold
// the same content in several forms: a reading system shows the first epub:case whose
// required-namespace it renders, else the epub:default. EdgeChat reads MathML and SVG, so
// the first case of those is read, as pandoc reads it; other cases, and the default where a
// case was read, are left out (IDPF's switch test writes "FAIL" in them).
type epubSwitch struct {
	// chosen says, for each open switch, innermost last, whether one of its forms is read.
	chosen []bool
	// passing counts the open elements named passName of a form left out.
	passing  int
	passName string
}

// readNamespaces are the namespaces of the foreign content EdgeChat reads (foreign.go).
var readNamespaces = map[string]bool{
	"http://www.w3.org/1998/Math/MathML": true, "http://www.w3.org/2000/svg": true,
}

// switchStart takes a start tag; it reports whether the tag is left out.
func (s *epubSwitch) switchStart(t html.Token) bool {
	open := t.Type != html.SelfClosingTagToken
	if s.passing > 0 {
		if t.Data == s.passName && open {
			s.passing++
		}
		return true
	}
	switch t.Data {
	case "epub:switch":
		if open {
			s.chosen = append(s.chosen, false)
		}
	case "epub:case", "epub:default":
		if len(s.chosen) == 0 {
			return false
		}
		top := &s.chosen[len(s.chosen)-1]
		if !*top && (t.Data == "epub:default" || readNamespaces[tokenAttr(t, "required-namespace")]) {
			*top = true
			return false
		}
		if open {
			s.passing, s.passName = 1, t.Data
		}
		return true
	}
	return false
}

// switchEnd takes an end tag; it reports whether the tag is left out.
func (s *epubSwitch) switchEnd(name string) bool {
	if s.passing > 0 {
		if name == s.passName {
			s.passing--
		}
		return true
	}
	if name == "epub:switch" && len(s.chosen) > 0 {
		s.chosen = s.chosen[:len(s.chosen)-1]
	}
	return false
}
