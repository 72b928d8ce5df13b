package extract

import (
	"encoding/xml"
	"strings"
)

// wordMath draws what Word draws of an equation (OMML, m:oMath) beyond its runs' text:
// an n-ary operator's sign (m:nary: ∫ where m:chr names none, ∑, ∏…) before its limits and
// argument, and a delimiter's brackets (m:d: "(" and ")" by default, m:begChr/m:endChr
// otherwise, m:sepChr "|" between its arguments). docx2python's equations.docx: Word shows
// "∫₀¹x", EdgeChat wrote "01x". Fractions, scripts and radicals are written in a linear
// form (mathlinear.go): "x²/2!", "x_(i)²", "√(x+1)", where their parts' text used to run
// together ("x22!"). A matrix's or equation array's entries are kept apart by spaces.
type wordMath struct {
	depth  int // open m: elements
	inNary bool
	nary   string
	inD    bool
	delims []wordDelim
	frames []mathFrame
	// cells are the open matrices, matrix rows and equation arrays, innermost last, whose
	// entries are kept apart by a space ("a b c d" for the matrix of rows a b and c d).
	cells []wordCells
}

// wordCells is an open m:m, m:mr or m:eqArr: its depth, the element of its entries and how
// many it has had.
type wordCells struct {
	depth   int
	entry   string
	entries int
}

// cellEntries names the entries of the elements that hold a table's cells.
var cellEntries = map[string]string{"m": "mr", "mr": "e", "eqArr": "e"}

// wordDelim is an open m:d: its characters, its depth, and how many arguments it has had.
type wordDelim struct {
	beg, sep, end string
	depth, args   int
}

// mathChar is an m:chr-like element's character: its val, or def where it has none.
func mathChar(t xml.StartElement, def string) string {
	if v, ok := attrValue(t, "val"); ok {
		return v
	}
	return def
}

// mathStart takes the start of an m: element; it returns what to write where it stands.
// text is the paragraph the equation is written into (nil: none).
func (m *wordMath) mathStart(t xml.StartElement, text *strings.Builder) string {
	m.depth++
	m.frameStart(t.Name.Local, text)
	sep := ""
	if n := len(m.cells); n > 0 && m.cells[n-1].depth == m.depth-1 && m.cells[n-1].entry == t.Name.Local {
		if m.cells[n-1].entries++; m.cells[n-1].entries > 1 {
			sep = " "
		}
	}
	if entry := cellEntries[t.Name.Local]; entry != "" {
		m.cells = append(m.cells, wordCells{depth: m.depth, entry: entry})
	}
	if sep != "" {
		return sep
	}
	switch t.Name.Local {
	case "naryPr":
		m.inNary, m.nary = true, "∫"
	case "chr":
		if m.inNary {
			m.nary = mathChar(t, "∫")
		}
	case "d":
		m.delims = append(m.delims, wordDelim{beg: "(", sep: "|", end: ")", depth: m.depth})
	case "dPr":
		m.inD = true
	case "begChr", "sepChr", "endChr":
		if n := len(m.delims); m.inD && n > 0 {
			d := &m.delims[n-1]
			switch t.Name.Local {
			case "begChr":
				d.beg = mathChar(t, "")
			case "sepChr":
				d.sep = mathChar(t, "")
			case "endChr":
				d.end = mathChar(t, "")
			}
		}
	case "e":
		if n := len(m.delims); n > 0 && m.delims[n-1].depth == m.depth-1 {
			d := &m.delims[n-1]
			if d.args++; d.args > 1 {
				return d.sep
			}
		}
	}
	return ""
}

// mathEnd takes the end of an m: element; it returns what to write where it stands.
func (m *wordMath) mathEnd(t xml.EndElement, text *strings.Builder) string {
	m.frameEnd(t.Name.Local, text)
	if n := len(m.cells); n > 0 && m.cells[n-1].depth == m.depth && cellEntries[t.Name.Local] != "" {
		m.cells = m.cells[:n-1]
	}
	m.depth = max(0, m.depth-1)
	switch t.Name.Local {
	case "naryPr":
		m.inNary = false
		return m.nary
	case "dPr":
		m.inD = false
		if n := len(m.delims); n > 0 {
			return m.delims[n-1].beg
		}
	case "d":
		if n := len(m.delims); n > 0 {
			end := m.delims[n-1].end
			m.delims = m.delims[:n-1]
			return end
		}
	}
	return ""
}
