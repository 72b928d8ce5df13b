package ui

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	gmtext "github.com/yuin/goldmark/text"
)

// Math is left as the model wrote it: $…$, $$…$$, \(…\) and \[…\] are kept verbatim, so
// that neither emphasis ("a_1 + b_1") nor escapes ("\[", "\{") change the formula.

// kindMath is the node kind of a math span.
var kindMath = ast.NewNodeKind("Math")

// mathNode is a math span; its children are raw Text nodes holding the source, delimiters
// included.
type mathNode struct{ ast.BaseInline }

func (n *mathNode) Kind() ast.NodeKind { return kindMath }

func (n *mathNode) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// mathParser is the goldmark inline parser of math spans.
type mathParser struct{}

func (mathParser) Trigger() []byte { return []byte{'$', '\\'} }

// Parse reads a math span starting at the reader's position, or returns nil (the text is
// then parsed as usual).
func (mathParser) Parse(_ ast.Node, block gmtext.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	var closer []byte
	multiLine := true
	switch {
	case bytes.HasPrefix(line, []byte("$$")):
		closer = []byte("$$")
	case bytes.HasPrefix(line, []byte(`\(`)):
		closer = []byte(`\)`)
	case bytes.HasPrefix(line, []byte(`\[`)):
		closer = []byte(`\]`)
	case line[0] == '$':
		closer, multiLine = []byte("$"), false
	default:
		return nil
	}
	open := len(closer)
	if !multiLine {
		return inlineDollar(line, block)
	}
	node := &mathNode{}
	first := true
	for {
		l, seg := block.PeekLine()
		if l == nil {
			return nil
		}
		from := 0
		if first {
			from = open
		}
		if i := bytes.Index(l[from:], closer); i >= 0 {
			end := from + i + len(closer)
			node.AppendChild(node, ast.NewRawTextSegment(seg.WithStop(seg.Start+end)))
			block.Advance(end)
			return node
		}
		node.AppendChild(node, ast.NewRawTextSegment(seg))
		block.AdvanceLine()
		first = false
	}
}

// inlineDollar reads $…$ on one line, as Pandoc does: no space just inside the dollars and
// no digit right after the closing one ("$5 and $10" is not math).
func inlineDollar(line []byte, block gmtext.Reader) ast.Node {
	if len(line) < 3 || line[1] == ' ' || line[1] == '\n' {
		return nil
	}
	for i := 2; i < len(line); i++ {
		switch line[i] {
		case '\n':
			return nil
		case '\\':
			i++ // an escaped dollar does not close
		case '$':
			if line[i-1] == ' ' || (i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9') {
				return nil
			}
			_, seg := block.PeekLine()
			node := &mathNode{}
			node.AppendChild(node, ast.NewRawTextSegment(seg.WithStop(seg.Start+i+1)))
			block.Advance(i + 1)
			return node
		}
	}
	return nil
}
