package extract

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlList is an open ol or ul: whether it numbers its items, the last item's number, the
// step (-1 for reversed) and the number format (type: 1, a, A, i, I).
type htmlList struct {
	ordered, started bool
	n, step          int
	format           string
}

// listStart takes an ol, ul or li start tag: an ordered list's item reads with the number a
// browser draws before it ("3.", "c.", "iv."; start, reversed, type and an item's value
// honoured, and CSS list-style-type from the style attribute or the page's style
// elements, htmlcss.go), as Word's and LibreOffice's list items do; an unordered list's
// items read as they are.
func (w *htmlWalker) listStart(t html.Token) error {
	attr := func(key string) (string, bool) {
		for _, a := range t.Attr {
			if a.Key == key {
				return a.Val, true
			}
		}
		return "", false
	}
	switch t.DataAtom {
	case atom.Ol, atom.Ul:
		l := htmlList{ordered: t.DataAtom == atom.Ol, step: 1, format: "1"}
		if _, ok := attr("reversed"); ok {
			l.step = -1
		}
		if v, ok := attr("start"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				l.n, l.started = n-l.step, true
			}
		}
		if v, ok := attr("type"); ok && strings.ContainsAny(v, "1aAiI") && len(v) == 1 {
			l.format = v
		}
		if m, ok := w.cssMarkerOf(t); ok { // CSS list-style-type: over the type attribute
			l.ordered = m != "" && m != "•"
			if l.ordered {
				l.format = m
			}
		}
		if len(w.lists) < MaxDepth {
			w.lists = append(w.lists, l)
		}
		return nil
	}
	if len(w.lists) == 0 || !w.lists[len(w.lists)-1].ordered {
		return nil
	}
	l := &w.lists[len(w.lists)-1]
	format := l.format
	if m, ok := w.cssMarkerOf(t); ok { // an item's own marker: none and bullets draw no number
		format = strings.TrimPrefix(m, "•")
	}
	switch v, ok := attr("value"); {
	case ok && strings.TrimSpace(v) != "":
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			l.n = n
			break
		}
		fallthrough
	case l.started || l.step > 0:
		l.n += l.step
	}
	if !l.started && l.step < 0 {
		return nil // reversed without a start: the count of its items is not known yet
	}
	l.started = true
	if format == "01" {
		format = "decimalZero"
	} else {
		format = odfFormat(format)
	}
	label := numberText(l.n, format)
	if label == "" {
		return nil
	}
	return w.text(label + ". ")
}
