package extract

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// readDOCX reads a DOCX (Office Open XML) archive: word/document.xml's paragraphs in
// order, split at headings (styles Title and Heading1–9, or any style or paragraph with
// an outline level, from word/styles.xml), text boxes and captions where they stand, tables
// row by row, a picture's description (its alt text) in brackets where the picture stands
// ("[Cow in pasture]", as pandoc prints it), symbols, then the footnotes and endnotes in the
// order the text cites them. Comments, deleted text, field codes and headers and footers
// are left out, as pandoc leaves them. A damaged styles or notes part costs only what it
// holds: the document's text is still read.
func readDOCX(b *budget, data []byte) (*Document, error) { return readWord(b, data, 0) }

// readWord reads a DOCX, or one an alt-chunk of depth-1 others holds (docxchunk.go).
func readWord(b *budget, data []byte, depth int) (*Document, error) {
	if bytes.HasPrefix(data, []byte{0xD0, 0xCF, 0x11, 0xE0}) {
		// An OLE compound file: an encrypted Office document (or an old binary .doc).
		return nil, fmt.Errorf("%w (or it is an old .doc file; save it as .docx without a password)", ErrEncrypted)
	}
	a, err := openArchive(b, data)
	if err != nil {
		return nil, err
	}
	main := "word/document.xml"
	if !a.has(main) {
		main = officeDocumentPart(a)
	}
	if main == "" || !a.has(main) {
		return nil, fmt.Errorf("%w: word/document.xml is missing", ErrCorrupt)
	}
	w := &wordWalker{b: b, depth: depth, levels: map[string]int{}, cited: map[string]int{}, styleNums: map[string]wordNumRef{}, numStyles: map[string]string{}}
	w.doc = &Document{Format: "docx"}
	if a.has("word/numbering.xml") {
		// damaged numbering costs only the list labels
		n, err := readNumbering(a, "word/numbering.xml")
		if err != nil && !errors.Is(err, ErrCorrupt) {
			return nil, err
		}
		w.numbering = n
	}
	if a.has("word/styles.xml") {
		// damaged styles cost only the headings they name: the text is read without them
		// (Word offers to repair such a file); budgets and deadlines still stop the reading
		if err := w.readStyles(a, "word/styles.xml"); err != nil && !errors.Is(err, ErrCorrupt) {
			return nil, err
		}
	}
	if err := w.walk(a, main, ""); err != nil {
		return nil, err
	}
	w.finish()
	for _, notes := range []struct{ part, heading string }{
		{"word/footnotes.xml", "Footnotes"}, {"word/endnotes.xml", "Endnotes"},
	} {
		if !a.has(notes.part) {
			continue
		}
		if err := w.walk(a, notes.part, notes.heading); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				return nil, err
			}
			w.dropPart() // damaged notes are left out, the document's text kept
		}
	}
	return w.doc, nil
}

// closeOpen ends the paragraphs, table cells and rows a part cut short left open, so that
// their text is kept and the next part's does not go into them.
func (w *wordWalker) closeOpen() {
	for len(w.paras) > 0 || w.inCell() || len(w.rows) > 0 {
		switch n := len(w.paras); {
		case n > 0:
			p := w.paras[n-1]
			w.paras = w.paras[:n-1]
			w.endPara(p)
		case w.inCell():
			w.endCell()
		default:
			if row := w.endRow(); row != "" {
				w.write(row)
			}
		}
	}
	w.skip, w.inText, w.tableAlt = 0, false, nil
	if w.dropCap != "" { // a drop cap that ends its part: its text is kept
		p := &wordPara{}
		p.text.WriteString(w.dropCap)
		w.dropCap = ""
		w.endPara(p)
	}
}

// dropPart forgets what a part that turned out damaged had begun.
func (w *wordWalker) dropPart() {
	w.note, w.notes, w.noteBytes = nil, nil, 0
	w.paras, w.tables, w.skip, w.inText, w.dropCap = nil, tables{}, 0, false, ""
	w.body.Reset()
}

// officeDocumentPart finds the main part through the package relationships, for
// archives that do not name it word/document.xml.
func officeDocumentPart(a *archive) string {
	for _, r := range relationships(a, "") {
		if strings.HasSuffix(r.typ, "/officeDocument") {
			return r.target
		}
	}
	return ""
}

// relationship is one Relationship of an OPC package part: its id, type and target (the
// archive path, resolved against the part; external ones as written).
type relationship struct {
	id, typ, target string
	external        bool
}

// relationships reads the relationships of part ("" for the package's own, _rels/.rels); a
// damaged relationships part gives those read before the damage.
func relationships(a *archive, part string) []relationship {
	rels := "_rels/.rels"
	if part != "" {
		rels = path.Join(path.Dir(part), "_rels", path.Base(part)+".rels")
	}
	if !a.has(rels) {
		return nil
	}
	var out []relationship
	a.walkXML(rels, func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "Relationship" {
			r := relationship{id: attr(t, "Id"), typ: attr(t, "Type"), target: attr(t, "Target"), external: attr(t, "TargetMode") == "External"}
			if !r.external {
				r.target = resolve(part, r.target)
			}
			out = append(out, r)
		}
		return nil
	})
	return out
}

// wordWalker reads WordprocessingML parts into doc.
type wordWalker struct {
	sectioner
	b *budget
	// levels maps paragraph style ids to heading levels (1–9).
	levels map[string]int
	// numbering is the list numbering (nil: none); styleNums the numbering paragraph
	// styles give their paragraphs, numStyles the instances numbering styles name.
	numbering *wordNumbering
	styleNums map[string]wordNumRef
	numStyles map[string]string
	// pPrChange counts the open records of formatting before a tracked change, tabStops
	// the open lists of tab stops.
	pPrChange, tabStops int
	// paras is the paragraphs open, innermost last: a text box's paragraphs stand inside
	// a paragraph of the text around it.
	paras []*wordPara
	tables
	// skip counts the open elements whose text is not read (a markup-compatibility
	// fallback, which repeats its choice; deleted runs; comments' marks).
	skip   int
	inText bool
	// runFont is the font the open run's properties name for its characters (w:rFonts),
	// which decides how a symbol font's text reads (wordsym.go).
	runFont string
	// math is what the equation open draws besides its runs (docxmath.go).
	math wordMath
	// cited numbers the footnotes and endnotes in the order the text cites them
	// ("footnote 7"); note is the note being read, notes those read, put in that order
	// when their part ends (Word numbers them so, and pandoc lists them so).
	cited     map[string]int
	note      *strings.Builder
	notes     []wordNote
	noteBytes int
	// dropCap is the text of a drop cap (a paragraph framed as the large first letter of
	// the next), which begins the next paragraph.
	dropCap string
	// depth is how many alt-chunks hold the document; rels the main part's relationships
	// (docxchunk.go).
	depth int
	rels  map[string]string
	// tableAlt is the alt text (title, description) of each open table, innermost last
	// (docxtablealt.go).
	tableAlt [][]string
}

// wordNote is a footnote's or endnote's text and its place among those the text cites.
type wordNote struct {
	order int
	text  string
}

type wordPara struct {
	text  strings.Builder
	style string
	// num is the paragraph's own list numbering (w:numPr), if any.
	num wordNumRef
	// outline is the paragraph's own outline level plus one (0: none).
	outline int
	// dropCap says the paragraph is a drop cap.
	dropCap bool
}

// readStyles maps paragraph styles to heading levels: a style's outline level, else its
// name ("heading 3", "Title"), else the level of the style it is based on; and to the list
// numbering they or the styles they are based on give (w:numPr), and numbering styles to
// their numbering instances.
func (w *wordWalker) readStyles(a *archive, part string) error {
	type style struct {
		name, basedOn string
		outline       int
		num           wordNumRef
	}
	styles, numbering := map[string]*style{}, map[string]*style{}
	var cur *style
	err := a.walkXML(part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				cur = nil
				switch attr(t, "type") {
				case "paragraph":
					cur = &style{num: wordNumRef{level: -1}}
					styles[attr(t, "styleId")] = cur
				case "numbering":
					cur = &style{num: wordNumRef{level: -1}}
					numbering[attr(t, "styleId")] = cur
				}
			case "numId":
				if cur != nil {
					cur.num.id, cur.num.set = attr(t, "val"), true
				}
			case "ilvl":
				if cur != nil {
					cur.num.level = levelIndex(attr(t, "val"))
				}
			case "name":
				if cur != nil {
					cur.name = attr(t, "val")
				}
			case "basedOn":
				if cur != nil {
					cur.basedOn = attr(t, "val")
				}
			case "outlineLvl":
				if cur != nil {
					cur.outline = outlineLevel(attr(t, "val"))
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for id, s := range numbering {
		w.numStyles[id] = s.num.id
	}
	for id := range styles {
		s := styles[id]
		for i := 0; s != nil && i < 20; i++ { // a chain of basedOn, bounded (it may loop)
			if s.num.set {
				w.styleNums[id] = s.num
				break
			}
			s = styles[s.basedOn]
		}
		s = styles[id]
		for range 20 { // a chain of basedOn, bounded (it may loop)
			if s.outline > 0 {
				w.levels[id] = s.outline
				break
			}
			if l := styleLevel(s.name); l > 0 {
				w.levels[id] = l
				break
			}
			if s = styles[s.basedOn]; s == nil {
				break
			}
		}
	}
	return nil
}

// outlineLevel turns w:outlineLvl's 0–8 into a heading level 1–9 (9, body text, is 0).
func outlineLevel(val string) int {
	n, err := strconv.Atoi(val)
	if err != nil || n < 0 || n > 8 {
		return 0
	}
	return n + 1
}

// walk reads one part; notes, when not "", is the heading its text goes under (the
// footnotes and endnotes), and notes of a separator type are skipped.
func (w *wordWalker) walk(a *archive, part, notes string) error {
	if notes != "" {
		w.restart(notes)
	}
	noteSkip := false      // inside a separator note
	var frame graphicFrame // a drawing's chart or SmartArt
	err := a.walkXML(part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "footnote", "endnote":
				typ := attr(t, "type")
				noteSkip = typ == "separator" || typ == "continuationSeparator" || typ == "continuationNotice"
				if notes != "" && !noteSkip && w.skip == 0 && w.note == nil {
					w.startNote(t.Name.Local, attr(t, "id"))
				}
			case "Fallback", "del", "moveFrom":
				w.skip++
			}
			if noteSkip || w.skip > 0 {
				return nil
			}
			if t.Name.Local == "altChunk" && notes == "" {
				return w.altChunk(a, part, attr(t, "id"))
			}
			if kind, id := frame.start(t); kind != noGraphic && notes == "" {
				if err := w.graphic(a, part, id, kind); err != nil {
					return err
				}
			}
			w.start(t)
		case xml.EndElement:
			switch t.Name.Local {
			case "Fallback", "del", "moveFrom":
				w.skip--
				return nil
			case "footnote", "endnote":
				noteSkip = false
				if w.note != nil && w.skip == 0 {
					w.endNote()
				}
			}
			frame.end(t)
			if noteSkip || w.skip > 0 {
				return nil
			}
			w.end(t)
		case xml.CharData:
			if w.inText && !noteSkip && w.skip == 0 && len(w.paras) > 0 {
				if isSymbolFont(w.runFont) {
					w.paras[len(w.paras)-1].text.WriteString(symbolText(w.runFont, string(t)))
				} else {
					w.paras[len(w.paras)-1].text.Write(t)
				}
			}
		}
		if w.body.Len()+w.noteBytes+w.noteLen() > MaxTextBytes {
			return fmt.Errorf("%w: more than %s of text", ErrTooBig, mb(MaxTextBytes))
		}
		return nil
	})
	if err != nil {
		return err
	}
	w.closeOpen()
	w.endNote() // a note left open by a part cut short
	slices.SortStableFunc(w.notes, func(a, b wordNote) int { return a.order - b.order })
	for _, n := range w.notes {
		w.body.WriteString(n.text)
	}
	w.notes, w.noteBytes = nil, 0
	w.finish()
	return nil
}

// startNote begins reading a footnote or endnote of the given kind and id; its text
// waits for the end of its part, to be put in the order the text cites the notes in.
func (w *wordWalker) startNote(kind, id string) {
	order, ok := w.cited[kind+" "+id]
	if !ok { // cited nowhere: after those cited, in the part's order
		order = 1<<30 + len(w.notes)
	}
	w.note = &strings.Builder{}
	w.notes = append(w.notes, wordNote{order: order})
}

// endNote ends the note being read, if any.
func (w *wordWalker) endNote() {
	if w.note == nil {
		return
	}
	w.notes[len(w.notes)-1].text = w.note.String()
	w.noteBytes += w.note.Len()
	w.note = nil
}

func (w *wordWalker) noteLen() int {
	if w.note == nil {
		return 0
	}
	return w.note.Len()
}

// out is where a finished paragraph or table row goes: the note being read, else the body.
func (w *wordWalker) out() *strings.Builder {
	if w.note != nil {
		return w.note
	}
	return &w.body
}

func (w *wordWalker) para() *wordPara {
	if len(w.paras) == 0 { // text outside a paragraph: read it as one
		w.paras = append(w.paras, &wordPara{})
	}
	return w.paras[len(w.paras)-1]
}

// mathText is the paragraph an equation is written into, nil before the first.
func (w *wordWalker) mathText() *strings.Builder {
	if len(w.paras) == 0 {
		return nil
	}
	return &w.para().text
}

func (w *wordWalker) start(t xml.StartElement) {
	if t.Name.Space == "m" {
		if s := w.math.mathStart(t, w.mathText()); s != "" && len(w.paras) > 0 {
			w.para().text.WriteString(s)
		}
	}
	switch t.Name.Local {
	case "p":
		p := &wordPara{num: wordNumRef{level: -1}}
		p.text.WriteString(w.dropCap)
		w.dropCap = ""
		w.paras = append(w.paras, p)
	case "framePr":
		if d := attr(t, "dropCap"); (d == "drop" || d == "margin") && len(w.paras) > 0 {
			w.para().dropCap = true
		}
	case "pStyle":
		if len(w.paras) > 0 {
			w.para().style = attr(t, "val")
		}
	case "outlineLvl":
		if len(w.paras) > 0 {
			w.para().outline = outlineLevel(attr(t, "val"))
		}
	case "pPrChange":
		w.pPrChange++
	case "numId":
		if len(w.paras) > 0 && w.pPrChange == 0 {
			p := w.para()
			p.num.id, p.num.set = attr(t, "val"), true
		}
	case "ilvl":
		if len(w.paras) > 0 && w.pPrChange == 0 {
			w.para().num.level = levelIndex(attr(t, "val"))
		}
	case "t":
		w.inText = t.Name.Space == "w" || t.Name.Space == "m" || t.Name.Space == ""
	case "r":
		w.runFont = ""
	case "rFonts":
		if f := attr(t, "ascii"); f != "" {
			w.runFont = f
		} else if f := attr(t, "hAnsi"); f != "" {
			w.runFont = f
		}
	case "tabs":
		w.tabStops++
	case "tab", "ptab":
		// a tab character, not a tab stop of the paragraph's properties (w:tabs/w:tab)
		if t.Name.Space == "w" && len(w.paras) > 0 && w.tabStops == 0 {
			w.para().text.WriteByte('\t')
		}
	case "br", "cr":
		w.para().text.WriteByte('\n')
	case "noBreakHyphen":
		w.para().text.WriteByte('-')
	case "sym":
		if t.Name.Space == "w" {
			w.para().text.WriteString(symbolChar(attr(t, "font"), attr(t, "char")))
		}
	case "docPr":
		// a drawing's description, Word's alt text, in brackets as pandoc prints it and
		// as an HTML image reads (a drawing's fallback, which repeats it, is skipped above)
		if alt := strings.Join(strings.Fields(attr(t, "descr")), " "); alt != "" && t.Name.Space == "wp" {
			p := w.para()
			if s := p.text.String(); s != "" && !strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\n") && !strings.HasSuffix(s, "\t") {
				p.text.WriteByte(' ')
			}
			p.text.WriteString("[" + alt + "] ")
		}
	case "footnoteReference", "endnoteReference":
		if kind := strings.TrimSuffix(t.Name.Local, "Reference"); w.cited != nil {
			if _, ok := w.cited[kind+" "+attr(t, "id")]; !ok {
				w.cited[kind+" "+attr(t, "id")] = len(w.cited)
			}
		}
	case "tr":
		w.startRow()
	case "tc":
		w.startCell()
	case "tbl", "tblCaption", "tblDescription":
		w.startTableAlt(t)
	}
}

func (w *wordWalker) end(t xml.EndElement) {
	if t.Name.Space == "m" {
		if s := w.math.mathEnd(t, w.mathText()); s != "" && len(w.paras) > 0 {
			w.para().text.WriteString(s)
		}
	}
	switch t.Name.Local {
	case "t":
		w.inText = false
	case "pPrChange":
		w.pPrChange = max(0, w.pPrChange-1)
	case "tabs":
		w.tabStops = max(0, w.tabStops-1)
	case "p":
		if len(w.paras) == 0 {
			return
		}
		p := w.paras[len(w.paras)-1]
		w.paras = w.paras[:len(w.paras)-1]
		w.endPara(p)
	case "tc":
		w.endCell()
	case "tr":
		if row := w.endRow(); row != "" {
			w.write(row)
		}
	case "tbl":
		if !w.inCell() {
			w.out().WriteString("\n")
		}
		w.endTableAlt(t)
	}
}

// endPara places a finished paragraph: a heading starts a section, any other paragraph
// goes to the table cell, the paragraph around it (a text box's) or the body.
func (w *wordWalker) endPara(p *wordPara) {
	text := p.text.String()
	if p.dropCap && len(w.paras) == 0 && !w.inCell() {
		w.dropCap = strings.TrimSpace(text)
		return
	}
	if label := w.listLabel(p); label != "" && (strings.TrimSpace(text) != "" || label != "•") {
		// an empty item keeps its number: tables put the numbers in a column of their own
		text = strings.TrimRight(label+" "+strings.TrimLeft(text, " \t"), " ")
	}
	level := p.outline
	if l := w.levels[p.style]; l > 0 && level == 0 {
		level = l
	}
	if level == 0 {
		level = styleLevel(p.style)
	}
	if level > 0 && !w.inCell() && len(w.paras) == 0 && w.note == nil && strings.TrimSpace(text) != "" {
		w.heading(level, strings.Join(strings.Fields(text), " "))
		return
	}
	if w.inCell() {
		c := w.cell()
		c.WriteString(text)
		c.WriteByte(' ')
		return
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	out := w.out()
	out.WriteString(text)
	out.WriteString("\n\n")
}

// wordNumRef is a paragraph's or style's w:numPr: a numbering instance and a level
// (-1: not given).
type wordNumRef struct {
	id    string
	level int
	set   bool
}

// listLabel counts a paragraph in its list and returns the label Word draws before it,
// "" if it is not numbered. Its own w:numPr wins over its style's; a level it does not
// give is its style's.
func (w *wordWalker) listLabel(p *wordPara) string {
	if w.numbering == nil {
		return ""
	}
	ref, style := p.num, w.styleNums[p.style]
	if !ref.set {
		level := ref.level
		ref = style
		if level >= 0 {
			ref.level = level
		}
	} else if ref.level < 0 && style.set {
		ref.level = style.level
	}
	if !ref.set {
		return ""
	}
	return w.numbering.label(ref.id, ref.level, p.style, w.numStyles)
}

// write adds text to the innermost open cell, else the body.
func (w *wordWalker) write(s string) { w.tables.write(w.out(), s) }

// attr is the value of t's first attribute of the local name, "" where it has none.
func attr(t xml.StartElement, local string) string {
	v, _ := attrValue(t, local)
	return v
}

// hasAttr says whether t has an attribute of the local name.
func hasAttr(t xml.StartElement, local string) bool {
	_, ok := attrValue(t, local)
	return ok
}

// attrValue is the value of t's first attribute of the local name, and whether it has one.
func attrValue(t xml.StartElement, local string) (string, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// styleLevel maps Word's built-in style ids and names to heading levels: Title 1,
// Heading1–9 ("heading 1"…) as they are, anything else 0.
func styleLevel(style string) int {
	s := strings.ToLower(strings.ReplaceAll(style, " ", ""))
	if s == "title" {
		return 1
	}
	if rest, ok := strings.CutPrefix(s, "heading"); ok && len(rest) == 1 && rest[0] >= '1' && rest[0] <= '9' {
		return int(rest[0] - '0')
	}
	return 0
}
