package extract

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// readHTML takes the visible text of an HTML page, split at its h1–h6 headings. Scripts,
// styles, forms' hidden parts and the head (but its title) are skipped.
func readHTML(data []byte) (*Document, error) {
	r, err := charset.NewReader(bytes.NewReader(data), "text/html")
	if err != nil {
		return nil, err
	}
	root, err := html.Parse(r)
	if err != nil {
		return nil, err
	}
	w := &htmlWalker{doc: &Document{Format: "html"}}
	w.walk(root)
	w.flush()
	if len(w.doc.Sections) == 0 && w.title != "" {
		w.doc.Sections = []Section{{Text: w.title}}
	}
	return w.doc, nil
}

type htmlWalker struct {
	doc   *Document
	h     headings
	cur   strings.Builder
	title string
}

// skipped elements hold no readable text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Select: true,
	atom.Button: true,
}

// blocks start on a new line.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Li: true,
	atom.Ul: true, atom.Ol: true, atom.Tr: true, atom.Table: true, atom.Blockquote: true,
	atom.Pre: true, atom.Br: true, atom.Hr: true, atom.Dt: true, atom.Dd: true, atom.Dl: true,
	atom.Header: true, atom.Footer: true, atom.Main: true, atom.Aside: true, atom.Figure: true,
	atom.Figcaption: true, atom.Form: true, atom.Address: true, atom.Caption: true,
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

func (w *htmlWalker) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.cur.WriteString(n.Data)
		return
	case html.ElementNode:
		if skipped[n.DataAtom] {
			return
		}
		if n.DataAtom == atom.Title {
			w.title = strings.TrimSpace(textOf(n))
			return
		}
		if n.DataAtom == atom.Head {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.DataAtom == atom.Title {
					w.walk(c)
				}
			}
			return
		}
		if level := headingLevel[n.DataAtom]; level > 0 {
			w.flush()
			w.h.set(level, strings.Join(strings.Fields(textOf(n)), " "))
			return
		}
		if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
			w.cur.WriteString("\t")
		}
		if blocks[n.DataAtom] {
			w.cur.WriteString("\n")
			defer w.cur.WriteString("\n")
		}
		if n.DataAtom == atom.Pre {
			w.cur.WriteString(textOf(n))
			return
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
}

// flush closes the current section, folding runs of spaces within each line.
func (w *htmlWalker) flush() {
	var b strings.Builder
	for line := range strings.Lines(w.cur.String()) {
		if f := strings.Fields(line); len(f) > 0 {
			b.WriteString(strings.Join(f, " "))
		}
		b.WriteByte('\n')
	}
	w.cur.Reset()
	if text := strings.TrimSpace(b.String()); text != "" {
		w.doc.Sections = append(w.doc.Sections, Section{Heading: w.h.String(), Text: text})
	}
}

// textOf is the text inside n, scripts and styles left out.
func textOf(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && skipped[n.DataAtom] {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}
