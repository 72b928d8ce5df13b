package extract

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// readHTML takes the visible text of an HTML page, split at its h1–h6 headings. Scripts,
// styles, forms' hidden parts and the head (but its title) are skipped. An image reads as
// its alt text in brackets, as pandoc prints it ("[a chart]"); a figure with a caption reads
// as the caption alone. It walks the
// tokens as they come, in time and memory linear in the page (a tree builder spends time
// quadratic in the depth of a page of nested elements).
func readHTML(b *budget, data []byte) (*Document, error) {
	doc, title, err := readHTMLBody(b, data)
	if err == nil && len(doc.Sections) == 0 && title != "" {
		doc.Sections = []Section{{Text: title}}
	}
	return doc, err
}

// readHTMLBody reads a page's body, and returns its title apart: a page without text
// reads as its title, but an EPUB's chapter, whose title is most often the book's, does
// not (fixed-layout books have blank pages and pages that are only a picture).
func readHTMLBody(b *budget, data []byte) (*Document, string, error) {
	data = dropDoctypeSubset(data)
	contentType := "text/html"
	if enc, ok := xmlEncoding(data); ok {
		contentType += "; charset=" + enc
	}
	r, err := charset.NewReader(bytes.NewReader(data), contentType)
	if err != nil {
		return nil, "", err
	}
	w := &htmlWalker{doc: &Document{Format: "html"}, b: b, inHead: true}
	if err := w.read(html.NewTokenizer(r)); err != nil {
		return nil, "", err
	}
	w.flush()
	w.keepPending()
	return w.doc, w.title, nil
}

type htmlWalker struct {
	doc *Document
	b   *budget
	h   headings
	cur strings.Builder
	// title is the head's title; inHead is true until the body starts.
	title  string
	inHead bool
	// skip is the skipped elements open around the current token, innermost last.
	skip []atom.Atom
	// heading is the level of the open h1–h6 (0: none) and its text so far.
	heading     int
	headingText strings.Builder
	// inTitle is true inside the head's title.
	inTitle bool
	// figures counts the open figure elements; figureAlt is the alt text of the images in
	// the outermost one, written at its end unless it had a caption.
	figures    int
	figureAlt  strings.Builder
	figureCapt bool
	// lists are the open ol and ul elements, innermost last (htmllist.go); css the text of
	// the page's style elements so far, cssRules their rules that set list markers
	// (htmlcss.go).
	lists    []htmlList
	css      strings.Builder
	cssRules []cssRule
	// pending is the last heading's level and words while no text has come under it:
	// a heading replaced before any text keeps its words as a section of its own.
	pending      string
	pendingLevel int
	// foreign is the state inside inline SVG and MathML (foreign.go), epubSwitch inside
	// EPUB 3.0's epub:switch (epubswitch.go).
	foreign
	epubSwitch
}

// skipped elements hold no readable text. An object's content is read: it is what shows
// where the object cannot be shown (EPUB 3's bindings: a quiz as its list of questions).
// SVG and MathML are read by foreign.go.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Iframe: true, atom.Select: true, atom.Button: true,
}

// blocks start on a new line.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Li: true,
	atom.Ul: true, atom.Ol: true, atom.Tr: true, atom.Table: true, atom.Blockquote: true,
	atom.Pre: true, atom.Br: true, atom.Hr: true, atom.Dt: true, atom.Dd: true, atom.Dl: true,
	atom.Header: true, atom.Footer: true, atom.Main: true, atom.Aside: true, atom.Figure: true,
	atom.Figcaption: true, atom.Form: true, atom.Address: true, atom.Caption: true,
	atom.Nav: true, atom.Details: true, atom.Summary: true,
}

// headElements may stand in the head; any other start tag begins the body.
var headElements = map[atom.Atom]bool{
	atom.Html: true, atom.Head: true, atom.Title: true, atom.Meta: true, atom.Link: true,
	atom.Style: true, atom.Script: true, atom.Base: true, atom.Noscript: true, atom.Template: true,
}

// void elements have no end tag.
var void = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true, atom.Embed: true,
	atom.Hr: true, atom.Img: true, atom.Input: true, atom.Link: true, atom.Meta: true,
	atom.Source: true, atom.Track: true, atom.Wbr: true,
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

// maxHeadingBytes bounds a heading's text: an unclosed heading holds the text after it,
// which is then read as text.
const maxHeadingBytes = 1024

func (w *htmlWalker) read(z *html.Tokenizer) error {
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := w.b.alive(); err != nil {
				return err
			}
		}
		switch z.Next() {
		case html.ErrorToken:
			if errors.Is(z.Err(), io.EOF) {
				return nil
			}
			return z.Err()
		case html.TextToken:
			if w.passing > 0 { // a form of an epub:switch left out
				continue
			}
			s := string(z.Text())
			if n := len(w.skip); n > 0 && w.skip[n-1] == atom.Style && w.css.Len()+len(s) <= maxCSSBytes {
				w.css.WriteString(s)
			}
			if len(w.skip) == 0 && w.inForeign() {
				s = w.foreignText(s)
			}
			if err := w.text(s); err != nil {
				return err
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			t := z.Token()
			if t.Type == html.SelfClosingTagToken {
				// an empty element, as XHTML writes it (an EPUB's "<title/>", "<iframe …/>",
				// "<script …/>"): what follows is markup, not the raw text the tokenizer
				// reads after such a start tag up to its end tag, which does not come
				z.NextIsNotRawText()
			}
			if w.switchStart(t) || len(w.skip) == 0 && w.foreignStart(t) {
				continue
			}
			w.start(t.DataAtom, t.Type == html.SelfClosingTagToken)
			if len(w.skip) == 0 && (t.DataAtom == atom.Ol || t.DataAtom == atom.Ul || t.DataAtom == atom.Li) && t.Type != html.SelfClosingTagToken {
				if err := w.listStart(t); err != nil {
					return err
				}
			}
			if t.DataAtom == atom.Img {
				if err := w.image(t.Attr); err != nil {
					return err
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if w.switchEnd(string(name)) || len(w.skip) == 0 && w.foreignEnd(string(name)) {
				continue
			}
			a := atom.Lookup(name)
			if a == 0 && len(w.skip) > 0 { // a skipped element of a prefixed name: "m:annotation"
				a = atom.Lookup([]byte(localName(string(name))))
			}
			if a == atom.Style && w.css.Len() > 0 {
				w.cssRules = cssListRules(w.css.String())
			}
			w.end(a)
		}
	}
}

func (w *htmlWalker) text(s string) error {
	switch {
	case len(w.skip) > 0:
	case w.inTitle:
		w.title += s
	case w.inHead:
		if strings.TrimSpace(s) == "" {
			return nil
		}
		w.inHead = false // text starts the body
		w.cur.WriteString(s)
	case w.heading > 0:
		w.headingText.WriteString(s)
		if w.headingText.Len() > maxHeadingBytes { // not a heading: give the text back
			w.cur.WriteString(w.headingText.String())
			w.headingText.Reset()
			w.heading = 0
		}
	default:
		w.cur.WriteString(s)
	}
	return w.b.addText(len(s))
}

func (w *htmlWalker) start(a atom.Atom, selfClosing bool) {
	if len(w.skip) > 0 {
		if skipped[a] && !selfClosing && !void[a] {
			w.skip = append(w.skip, a)
		}
		return
	}
	if w.inHead && !headElements[a] {
		w.inHead = false
	}
	if a == atom.Body {
		w.inHead = false
	}
	switch {
	case skipped[a]:
		if !selfClosing {
			w.skip = append(w.skip, a)
		}
	case a == atom.Title && w.inHead && !selfClosing:
		w.inTitle = true
	case headingLevel[a] > 0:
		w.endHeading()
		w.flush()
		w.heading = headingLevel[a]
	case w.heading > 0:
		// a line break or block inside a heading parts words; inline markup does not
		// ("<h4>使用する<span>文字</span></h4>", "<h2>Edge<em>Chat</em></h2>")
		if blocks[a] || a == atom.Td || a == atom.Th {
			w.headingText.WriteByte(' ')
		}
	case a == atom.Td || a == atom.Th:
		w.cur.WriteString("\t")
	case blocks[a]:
		w.cur.WriteString("\n")
	}
	switch a {
	case atom.Figure:
		if w.figures == 0 {
			w.figureAlt.Reset()
			w.figureCapt = false
		}
		w.figures++
	case atom.Figcaption:
		if w.figures > 0 {
			w.figureCapt = true
		}
	}
}

// image writes an img's alt text in brackets where the image stands; inside a figure it
// waits for the figure's end, where a caption replaces it.
func (w *htmlWalker) image(attrs []html.Attribute) error {
	if len(w.skip) > 0 {
		return nil
	}
	var alt, src string
	for _, at := range attrs {
		switch at.Key {
		case "alt":
			alt = strings.TrimSpace(at.Val)
		case "src":
			src = at.Val
		}
	}
	if alt == "" || isFileName(alt, src) {
		return nil
	}
	alt = "[" + alt + "]"
	if w.figures > 0 && w.heading == 0 {
		if w.figureAlt.Len()+len(alt) <= maxHeadingBytes {
			w.figureAlt.WriteString(" " + alt)
		}
		return nil
	}
	return w.text(alt)
}

func (w *htmlWalker) end(a atom.Atom) {
	if len(w.skip) > 0 {
		if w.skip[len(w.skip)-1] == a {
			w.skip = w.skip[:len(w.skip)-1]
		}
		return
	}
	switch {
	case a == atom.Title:
		w.inTitle = false
		w.title = strings.TrimSpace(w.title)
	case a == atom.Head:
		w.inHead = false
	case a == atom.Figure && w.figures > 0:
		w.figures--
		if w.figures == 0 && !w.figureCapt && w.figureAlt.Len() > 0 {
			w.cur.WriteString("\n" + strings.TrimSpace(w.figureAlt.String()))
		}
		w.cur.WriteString("\n")
	case headingLevel[a] > 0:
		w.endHeading()
	case blocks[a]:
		w.cur.WriteString("\n")
	}
	if (a == atom.Ol || a == atom.Ul) && len(w.lists) > 0 {
		w.lists = w.lists[:len(w.lists)-1]
	}
}

// endHeading sets the open heading, if any, as the path's level.
func (w *htmlWalker) endHeading() {
	if w.heading == 0 {
		return
	}
	text := strings.Join(strings.Fields(w.headingText.String()), " ")
	if w.heading <= w.pendingLevel {
		w.keepPending()
	}
	w.h.set(w.heading, text)
	w.pending, w.pendingLevel = text, w.heading
	w.heading = 0
	w.headingText.Reset()
}

// keepPending makes the pending heading a section of its own.
func (w *htmlWalker) keepPending() {
	if w.pending != "" {
		parent := w.h
		parent.set(w.pendingLevel, "")
		w.doc.Sections = append(w.doc.Sections, Section{Heading: parent.String(), Text: w.pending})
	}
	w.pending, w.pendingLevel = "", 0
}

// flush closes the current section, folding runs of spaces within each line.
func (w *htmlWalker) flush() {
	var b strings.Builder
	for line := range strings.Lines(w.cur.String()) {
		foldSpaces(&b, line)
		b.WriteByte('\n')
	}
	w.cur.Reset()
	if text := strings.TrimSpace(b.String()); text != "" {
		w.doc.Sections = append(w.doc.Sections, Section{Heading: w.h.String(), Text: text})
		w.pending, w.pendingLevel = "", 0
	}
}

// foldSpaces writes s with its runs of white space folded to one space and none at either
// end, as strings.Join(strings.Fields(s), " ") without the slice of words.
func foldSpaces(b *strings.Builder, s string) {
	space := false
	start := b.Len()
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > start {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
}

// isFileName reports whether an image's alt text is only its source, as generators write
// when the author gave none (Sphinx: alt="_images/scope.png"): pandoc leaves it out too.
// A bare file name ("jackdsetup.png" for "./images/jackdsetup.png") is kept, as pandoc keeps it.
func isFileName(alt, src string) bool {
	return alt == src || "./"+alt == src || alt == "./"+src
}

// xmlEncoding is the encoding an XML declaration ("<?xml version='1.0' encoding='utf-8'?>")
// gives an XHTML page, UTF-8 where it names none, as XML has it; ok is false without one.
// HTML's own rules look only for a meta charset and, failing one in the first 1,024 bytes,
// take bytes that are all ASCII there for Windows-1252 (Project Gutenberg's EPUBs read
// "Adamsâ€™" for "Adams’").
func xmlEncoding(data []byte) (enc string, ok bool) {
	head := bytes.TrimLeft(bytes.TrimPrefix(data[:min(len(data), 512)], []byte("\ufeff")), " \t\r\n")
	if !bytes.HasPrefix(head, []byte("<?xml")) {
		return "", false
	}
	decl, _, found := bytes.Cut(head, []byte("?>"))
	if !found {
		return "", false
	}
	_, rest, found := bytes.Cut(decl, []byte("encoding"))
	rest = bytes.TrimLeft(rest, " \t\r\n")
	if !found || !bytes.HasPrefix(rest, []byte("=")) {
		return "utf-8", true
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) < 2 || rest[0] != '"' && rest[0] != '\'' {
		return "utf-8", true
	}
	name, _, found := bytes.Cut(rest[1:], rest[:1])
	if !found || len(name) == 0 {
		return "utf-8", true
	}
	return string(name), true
}

// dropDoctypeSubset takes an XML document type's internal subset off an XHTML page
// (<!DOCTYPE html [ <!ENTITY …> ]>): HTML's tokenizer ends the doctype at the subset's first
// ">", and the rest ("]>") was read as the page's first words, the head's title after them.
func dropDoctypeSubset(data []byte) []byte {
	head := data[:min(len(data), 4096)]
	i := bytes.Index(bytes.ToUpper(head), []byte("<!DOCTYPE"))
	if i < 0 {
		return data
	}
	open := bytes.IndexAny(data[i:], "[>")
	if open < 0 || data[i+open] != '[' {
		return data
	}
	open += i
	for j := open + 1; j < len(data) && j < open+65536; j++ {
		if data[j] != ']' {
			continue
		}
		k := j + 1
		for k < len(data) && (data[k] == ' ' || data[k] == '\t' || data[k] == '\r' || data[k] == '\n') {
			k++
		}
		if k < len(data) && data[k] == '>' {
			return append(data[:open:open], data[j+1:]...)
		}
	}
	return data
}
