package extract

import (
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// maxCSSBytes bounds the style sheet text a page's <style> elements give the list rules.
const maxCSSBytes = 64 << 10

// cssRule is one rule of a page's <style> elements that sets a list's marker
// (list-style-type, or the list-style shorthand): a compound selector (tag, classes, id;
// rules with combinators or pseudo-classes are not read), its specificity and the marker.
type cssRule struct {
	tag, id     string
	classes     []string
	specificity int
	marker      string
}

// cssListRules reads the rules of a style sheet that set list markers. It is no CSS
// engine: comments are dropped, at-rules' blocks read as if they were rules (their
// selectors match nothing), and only compound selectors count.
func cssListRules(css string) []cssRule {
	for { // comments
		i := strings.Index(css, "/*")
		if i < 0 {
			break
		}
		j := strings.Index(css[i+2:], "*/")
		if j < 0 {
			css = css[:i]
			break
		}
		css = css[:i] + " " + css[i+2+j+2:]
	}
	var rules []cssRule
	for _, block := range strings.Split(css, "}") {
		sel, decls, ok := strings.Cut(block, "{")
		if !ok {
			continue
		}
		marker, ok := cssMarker(decls)
		if !ok {
			continue
		}
		for _, s := range strings.Split(sel, ",") {
			if r, ok := cssCompound(strings.TrimSpace(s)); ok {
				r.marker = marker
				rules = append(rules, r)
			}
		}
	}
	return rules
}

// cssCompound parses a compound selector: "ol", ".steps", "ol.steps", "li#x.a.b".
func cssCompound(s string) (cssRule, bool) {
	var r cssRule
	if s == "" || strings.ContainsAny(s, " >+~:[*()@\t\n") {
		return r, false
	}
	i := strings.IndexAny(s, ".#")
	if i < 0 {
		i = len(s)
	}
	r.tag = strings.ToLower(s[:i])
	if r.tag != "" {
		r.specificity++
	}
	for s = s[i:]; s != ""; {
		kind := s[0]
		j := strings.IndexAny(s[1:], ".#") + 1
		if j == 0 {
			j = len(s)
		}
		name := s[1:j]
		if name == "" {
			return r, false
		}
		if kind == '#' {
			r.id = name
			r.specificity += 10000
		} else {
			r.classes = append(r.classes, name)
			r.specificity += 100
		}
		s = s[j:]
	}
	return r, true
}

// cssMarker finds the list marker in declarations ("list-style-type: lower-roman",
// "list-style: upper-alpha inside"): a format numberText knows through odfFormat ("1",
// "a", "A", "i", "I"), "01" for decimal-leading-zero, "" for none, "•" for a bullet.
func cssMarker(decls string) (string, bool) {
	marker, found := "", false
	for _, d := range strings.Split(decls, ";") {
		key, val, ok := strings.Cut(d, ":")
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(key))
		if key != "list-style-type" && key != "list-style" {
			continue
		}
		val = strings.ToLower(strings.TrimSpace(strings.Replace(val, "!important", "", 1)))
		for _, word := range strings.Fields(val) {
			if m, ok := cssMarkers[word]; ok {
				marker, found = m, true
				break
			}
		}
	}
	return marker, found
}

var cssMarkers = map[string]string{
	"decimal": "1", "decimal-leading-zero": "01", "lower-alpha": "a", "lower-latin": "a",
	"upper-alpha": "A", "upper-latin": "A", "lower-roman": "i", "upper-roman": "I",
	"none": "", "disc": "•", "circle": "•", "square": "•",
}

// cssMarkerOf is the list marker the page's rules and the element's style attribute give
// an ol, ul or li; ok is false where neither sets one. The most specific rule wins, the
// last of equal ones; the style attribute wins over rules.
func (w *htmlWalker) cssMarkerOf(t html.Token) (string, bool) {
	var id, style string
	var classes []string
	for _, a := range t.Attr {
		switch a.Key {
		case "id":
			id = a.Val
		case "class":
			classes = strings.Fields(a.Val)
		case "style":
			style = a.Val
		}
	}
	if m, ok := cssMarker(style); ok {
		return m, true
	}
	marker, best := "", -1
	for _, r := range w.cssRules {
		if r.specificity < best || r.tag != "" && r.tag != t.Data || r.id != "" && r.id != id {
			continue
		}
		all := true
		for _, c := range r.classes {
			all = all && slices.Contains(classes, c)
		}
		if all {
			marker, best = r.marker, r.specificity
		}
	}
	return marker, best >= 0
}
