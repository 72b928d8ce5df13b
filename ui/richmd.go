package ui

import (
	"fmt"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	gmtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Markdown → RichText segments, keeping the text as the model wrote it.
//
// Fyne's own Markdown path (widget.NewRichTextFromMarkdown) changes the text: goldmark cuts a
// line into several Text nodes at every character that could start markup ('!', '[', '*',
// '<', …), and Fyne appends a space to every Text node followed by another inline node
// (suffixSpaceIfAppropriate) and joins the texts of emphasis and links with spaces
// (forceIntoText); so "Hello! What" showed "Hello ! What". It also drops soft line breaks
// (a single "\n" became a space), inline HTML ("Vec<String>" lost "<String>") and tables.
// Each Text node also became its own segment, and Fyne's word wrap breaks a segment that
// starts mid-row inside its first word ("fun.\nAs she" showed "fun. A s", a blank row,
// "she"). Here adjacent pieces of the same style are joined into one segment, nothing is
// added between them, every line break the model wrote stays a line break, and
// unrecognised markup stays as text.

// mdParser is safe for concurrent use once built.
var mdParser = goldmark.New(
	goldmark.WithExtensions(extension.Table),
	goldmark.WithParserOptions(parser.WithInlineParsers(util.Prioritized(mathParser{}, 50))),
).Parser()

// markdownSegments renders Markdown source as RichText segments.
func markdownSegments(src string) []widget.RichTextSegment {
	source := []byte(src)
	doc := mdParser.Parse(gmtext.NewReader(source))
	r := &mdRender{src: source}
	return r.blocks(doc, false)
}

type mdRender struct{ src []byte }

// blocks renders the block children of n; quote marks text inside a block quote.
func (r *mdRender) blocks(n ast.Node, quote bool) []widget.RichTextSegment {
	var out []widget.RichTextSegment
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = append(out, r.block(c, quote)...)
	}
	return out
}

func paragraphEnd() widget.RichTextSegment {
	return &widget.TextSegment{Style: widget.RichTextStyleParagraph}
}

func (r *mdRender) block(n ast.Node, quote bool) []widget.RichTextSegment {
	switch t := n.(type) {
	case *ast.Paragraph:
		return append(r.inlines(n, quote), paragraphEnd())
	case *ast.TextBlock:
		return r.inlines(n, quote)
	case *ast.Heading:
		style := widget.RichTextStyleParagraph
		switch t.Level {
		case 1:
			style = widget.RichTextStyleHeading
		case 2:
			style = widget.RichTextStyleSubHeading
		default:
			style.TextStyle.Bold = true
		}
		return []widget.RichTextSegment{&widget.TextSegment{Style: style, Text: r.plain(n)}}
	case *ast.ThematicBreak:
		return []widget.RichTextSegment{&widget.SeparatorSegment{}}
	case *ast.List:
		return r.list(t, 0, quote)
	case *ast.CodeBlock, *ast.FencedCodeBlock:
		code := strings.TrimSuffix(r.lines(n), "\n")
		if code == "" {
			return nil
		}
		return []widget.RichTextSegment{&widget.TextSegment{Style: widget.RichTextStyleCodeBlock, Text: code}}
	case *ast.Blockquote:
		return r.blocks(n, true)
	case *ast.HTMLBlock:
		s := r.lines(n)
		if t.HasClosure() {
			s += string(t.ClosureLine.Value(r.src))
		}
		return []widget.RichTextSegment{
			&widget.TextSegment{Style: inlineStyle(fyne.TextStyle{}, quote), Text: strings.TrimRight(s, "\n")},
			paragraphEnd(),
		}
	case *east.Table:
		return []widget.RichTextSegment{r.table(t)}
	}
	return r.blocks(n, quote)
}

// list renders a list as one row per item, its marker indented by depth: Fyne's
// ListSegment neither indents a nested list nor ends the parent item's row before it.
func (r *mdRender) list(l *ast.List, depth int, quote bool) []widget.RichTextSegment {
	var out []widget.RichTextSegment
	indent := strings.Repeat("    ", depth)
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := indent + "•  "
		if l.IsOrdered() {
			marker = fmt.Sprintf("%s%d%c ", indent, num, l.Marker)
			num++
		}
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.TextBlock, *ast.Paragraph:
				lead := &widget.TextSegment{Style: inlineStyle(fyne.TextStyle{}, quote), Text: marker}
				texts := append([]widget.RichTextSegment{lead}, r.inlines(c, quote)...)
				out = append(out, &widget.ParagraphSegment{Texts: append(texts, paragraphEnd())})
				marker = indent + "    "
			case *ast.List:
				out = append(out, r.list(c, depth+1, quote)...)
			default:
				out = append(out, r.block(c, quote)...)
			}
		}
	}
	return out
}

// lines returns the source lines of a block verbatim.
func (r *mdRender) lines(n ast.Node) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(r.src))
	}
	return b.String()
}

// inlines renders the inline children of a paragraph, joining pieces of one style.
func (r *mdRender) inlines(n ast.Node, quote bool) []widget.RichTextSegment {
	w := &inlineWriter{quote: quote}
	r.walk(n, w, fyne.TextStyle{})
	// The paragraph's own end is its last line break, not one the model wrote.
	if len(w.segs) > 0 {
		if last, ok := w.segs[len(w.segs)-1].(*widget.TextSegment); ok {
			last.Text = strings.TrimRight(last.Text, "\n")
		}
	}
	return w.segs
}

// inlineWriter collects inline segments, appending text to the last segment when the style
// is the same.
type inlineWriter struct {
	segs  []widget.RichTextSegment
	quote bool
}

func inlineStyle(ts fyne.TextStyle, quote bool) widget.RichTextStyle {
	st := widget.RichTextStyleInline
	if ts.Monospace {
		st = widget.RichTextStyleCodeInline
	}
	st.TextStyle = ts
	if quote {
		st.TextStyle.Italic = true
	}
	return st
}

func (w *inlineWriter) text(s string, ts fyne.TextStyle) {
	if s == "" {
		return
	}
	st := inlineStyle(ts, w.quote)
	if n := len(w.segs); n > 0 {
		if last, ok := w.segs[n-1].(*widget.TextSegment); ok && last.Style == st {
			last.Text += s
			return
		}
	}
	w.segs = append(w.segs, &widget.TextSegment{Style: st, Text: s})
}

func (w *inlineWriter) link(label, dest string, ts fyne.TextStyle) {
	u, err := url.Parse(dest)
	if err != nil || dest == "" || label == "" {
		w.text(label, ts)
		return
	}
	w.segs = append(w.segs, &widget.HyperlinkSegment{Alignment: fyne.TextAlignLeading, Text: label, URL: u})
}

// walk renders the inline children of n in style ts.
func (r *mdRender) walk(n ast.Node, w *inlineWriter, ts fyne.TextStyle) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.Text:
			w.text(r.textValue(t), ts)
		case *ast.String:
			w.text(string(t.Value), ts)
		case *ast.CodeSpan:
			code := ts
			code.Monospace = true
			w.text(strings.ReplaceAll(r.raw(c), "\n", " "), code)
		case *ast.Emphasis:
			inner := ts
			if t.Level >= 2 {
				inner.Bold = true
			} else {
				inner.Italic = true
			}
			r.walk(c, w, inner)
		case *ast.Link:
			w.link(r.plain(c), string(t.Destination), ts)
		case *ast.AutoLink:
			label := string(t.Label(r.src))
			dest := label
			if t.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(dest), "mailto:") {
				dest = "mailto:" + dest
			}
			w.link(label, dest, ts)
		case *ast.Image:
			w.link(r.plain(c), string(t.Destination), ts)
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < t.Segments.Len(); i++ {
				seg := t.Segments.At(i)
				b.Write(seg.Value(r.src))
			}
			w.text(b.String(), ts)
		case *mathNode:
			w.text(r.raw(c), ts)
		default:
			r.walk(c, w, ts)
		}
	}
}

// textValue is a Text node as shown: escapes resolved (unless raw) and the line break the
// model wrote after it.
func (r *mdRender) textValue(t *ast.Text) string {
	v := t.Segment.Value(r.src)
	if !t.IsRaw() {
		v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
	}
	s := string(v)
	if t.SoftLineBreak() || t.HardLineBreak() {
		s += "\n"
	}
	return s
}

// raw joins the verbatim text of n's Text children.
func (r *mdRender) raw(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(r.src))
		}
	}
	return b.String()
}

// plain is the text of n's inline content without markup (headings, links, table cells).
func (r *mdRender) plain(n ast.Node) string {
	w := &inlineWriter{}
	r.walk(n, w, fyne.TextStyle{})
	var b strings.Builder
	for _, s := range w.segs {
		switch s := s.(type) {
		case *widget.TextSegment:
			b.WriteString(s.Text)
		case *widget.HyperlinkSegment:
			b.WriteString(s.Text)
		}
	}
	return strings.TrimRight(strings.ReplaceAll(b.String(), "\n", " "), " ")
}

// table reads a table's cells (as plain text) into a tableSegment.
func (r *mdRender) table(t *east.Table) *tableSegment {
	ts := &tableSegment{align: t.Alignments}
	_, ts.header = t.FirstChild().(*east.TableHeader)
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, r.plain(cell))
		}
		ts.cols = max(ts.cols, len(cells))
		ts.rows = append(ts.rows, cells)
	}
	return ts
}
