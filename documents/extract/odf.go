package extract

import (
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// readODF reads an OpenDocument text, spreadsheet or presentation (ODT, ODS, ODP) from
// its content.xml: paragraphs in order, split at headings (text:h and its outline level),
// list items with the labels LibreOffice draws before them (odfnum.go), frames' text
// boxes, captions, LibreOffice Math formulas (odfmath.go) and charts (odfchart.go) where they stand, tables row by row (a spreadsheet's
// sheets under their names, a presentation's slides under theirs or, unnamed, "Slide N" as Impress shows them), notes gathered under
// "Footnotes" at the end. Comments (office:annotation), tracked deletions and the
// headers and footers of styles.xml are left out, as pandoc leaves them, but for the
// comments a spreadsheet shows beside their cells (shownNote).
func readODF(b *budget, data []byte) (*Document, error) {
	a, err := openArchive(b, data)
	if err != nil {
		return nil, err
	}
	if !a.has("content.xml") {
		if a.has("styles.xml") {
			return nil, errStylesOnly{} // LibreOffice's page-style templates
		}
		return nil, fmt.Errorf("%w: content.xml is missing", ErrCorrupt)
	}
	if encrypted, err := odfEncrypted(a); err != nil || encrypted {
		if err == nil {
			err = fmt.Errorf("%w (LibreOffice encrypted it)", ErrEncrypted)
		}
		return nil, err
	}
	w := &odfWalker{tables: tables{dropEmpty: true}, a: a}
	w.doc = &Document{Format: "odf"}
	if a.has("styles.xml") {
		// the named list styles; damaged styles cost only the list labels
		err := a.walkXML("styles.xml", func(tok xml.Token) error {
			switch t := tok.(type) {
			case xml.StartElement:
				w.lists.styles.element(t)
			case xml.EndElement:
				w.lists.styles.end(t)
			}
			return nil
		})
		if err != nil && !errors.Is(err, ErrCorrupt) {
			return nil, err
		}
	}
	err = a.walkXML("content.xml", func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			w.start(t)
		case xml.EndElement:
			w.end(t)
		case xml.CharData:
			w.text(t)
		}
		if w.err != nil {
			return w.err
		}
		if w.body.Len() > MaxTextBytes || w.notes.Len() > MaxTextBytes {
			return fmt.Errorf("%w: more than %s of text", ErrTooBig, mb(MaxTextBytes))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	w.finish()
	if strings.TrimSpace(w.notes.String()) != "" {
		w.restart("Footnotes")
		w.body.WriteString(w.notes.String())
		w.finish()
	}
	return w.doc, nil
}

// odfEncrypted reports whether the manifest says content.xml is encrypted (a document
// saved with a password).
func odfEncrypted(a *archive) (bool, error) {
	if !a.has("META-INF/manifest.xml") {
		return false, nil
	}
	entry, encrypted := "", false
	err := a.walkXML("META-INF/manifest.xml", func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok {
			switch t.Name.Local {
			case "file-entry":
				entry = attr(t, "full-path")
			case "encryption-data":
				encrypted = encrypted || entry == "content.xml"
			}
		}
		return nil
	})
	return encrypted, err
}

type odfWalker struct {
	sectioner
	// paras is the paragraphs and headings open, innermost last (a frame's text box
	// stands inside a paragraph); a heading's level is above 0.
	paras []*odfPara
	tables
	// skip counts the open elements whose text is not read; notes the open note bodies.
	skip, inNote int
	notes        strings.Builder
	// shown counts the open comments a sheet shows (shownNote); shownText holds their
	// text until their cell ends.
	shown     int
	shownText strings.Builder
	inBody    bool
	// spreadsheet says the body is a spreadsheet's: its tables are sheets, with names.
	spreadsheet bool
	// pages counts a presentation's or drawing's pages so far; drawing says the body is a
	// drawing's (Draw), whose pages LibreOffice calls "Page", not "Slide".
	pages   int
	drawing bool
	// lists numbers the list items.
	lists odfLists
	// a is the document's archive, whose embedded objects hold formulas and charts; math is
	// the MathML formula open in the text; err the first error met reading an object;
	// sheetCells the cells of a spreadsheet's sheets its charts name (odfchart.go).
	a          *archive
	math       *mathText
	err        error
	sheetCells *odfSheetCells
	// sheetTable says a spreadsheet's sheet is open; sheetCharts holds its charts' words
	// until its end.
	sheetTable  bool
	sheetCharts []string
}

type odfPara struct {
	text  strings.Builder
	level int
	// space says the text ends in a space (ODF folds runs of white space); afterMath that
	// it ends in a formula, which a word after it is kept apart from; labelled that it
	// begins with the label its list or the heading numbering draws.
	space, afterMath, labelled bool
}

// odfSkipped elements hold no text the document shows as its own (svg:title and svg:desc
// describe a drawing; text:title is the document's title shown as a field, and is read).
var odfSkipped = map[string]bool{
	"annotation": true, "tracked-changes": true, "note-citation": true, "forms": true,
	"sequence-decls": true, "variable-decls": true, "user-field-decls": true, "desc": true,
	"title": true,
}

// odfNoteMeta are a comment's author and dates, not its text.
var odfNoteMeta = map[string]bool{"dc:creator": true, "dc:date": true, "meta:date-string": true}

// shownNote says whether t is a spreadsheet cell's comment that the sheet shows beside
// its cell (office:display, Calc's Show Comment), not only on hovering: read in the cell,
// after its text. Other comments are left out, as pandoc leaves them.
func (w *odfWalker) shownNote(t xml.StartElement) bool {
	return t.Name.Space == "office" && t.Name.Local == "annotation" && w.spreadsheet && w.inCell() &&
		attr(t, "display") == "true"
}

func (w *odfWalker) start(t xml.StartElement) {
	name := t.Name.Local
	if name == "body" && t.Name.Space == "office" {
		w.inBody = true
	}
	if !w.inBody {
		w.lists.styles.element(t) // content.xml's automatic styles
		return
	}
	if w.math != nil {
		w.math.start(t)
		return
	}
	if name == "spreadsheet" && t.Name.Space == "office" {
		w.spreadsheet = true
	}
	if name == "drawing" && t.Name.Space == "office" {
		w.drawing = true
	}
	if w.skip > 0 || odfSkipped[name] && (t.Name.Space != "text" || name != "title") && !w.shownNote(t) ||
		w.shown > 0 && odfNoteMeta[t.Name.Space+":"+name] ||
		name == "number" && t.Name.Space == "text" && w.para() != nil && w.para().labelled {
		// text:number is the label as the writer drew it, for readers that count none
		w.skip++
		return
	}
	switch name {
	case "annotation":
		w.shown++
	case "p", "h":
		p := &odfPara{space: true}
		label := w.lists.label(len(w.paras))
		if name == "h" {
			p.level = 1
			n, err := strconv.Atoi(attr(t, "outline-level"))
			if err == nil && n >= 1 && n <= 9 {
				p.level = n
			}
			if len(w.lists.open) == 0 && t.Name.Space == "text" {
				label = w.lists.heading(t, max(n, 1))
			}
		}
		if label != "" {
			p.text.WriteString(label + " ")
			p.labelled = true
		}
		w.paras = append(w.paras, p)
	case "s":
		if p := w.para(); p != nil {
			n, err := strconv.Atoi(attr(t, "c"))
			if err != nil || n < 1 {
				n = 1
			}
			p.text.WriteString(strings.Repeat(" ", min(n, 100)))
			p.space = true
		}
	case "tab":
		if p := w.para(); p != nil {
			p.text.WriteByte('\t')
			p.space = true
		}
	case "line-break":
		if p := w.para(); p != nil {
			p.text.WriteByte('\n')
			p.space = true
		}
	case "object": // an embedded object: LibreOffice Math's formulas and charts are read
		if t.Name.Space == "draw" {
			text, err := odfObjectMath(w.a, attr(t, "href"))
			if err == nil && text == "" {
				var chart string
				chart, err = odfChart(w.a, attr(t, "href"), w.chartCells())
				w.addChart(chart)
			}
			if err != nil && w.err == nil {
				w.err = err
			}
			w.addMath(text)
		}
	case "math": // MathML written into the text (flat ODF)
		w.math = &mathText{}
		w.math.start(t)
	case "note-body":
		w.inNote++
	case "list":
		if t.Name.Space == "text" {
			w.lists.startList(t)
		}
	case "list-item", "list-header":
		if t.Name.Space == "text" {
			w.lists.startItem(t, len(w.paras))
		}
	case "table":
		if name := attr(t, "name"); name != "" && w.spreadsheet && !w.inCell() && len(w.paras) == 0 && t.Name.Space == "table" {
			w.sheet(name)
		}
		if w.spreadsheet && !w.inCell() && t.Name.Space == "table" {
			w.sheetTable = true
		}
	case "page": // a presentation's slide
		if t.Name.Space == "draw" {
			w.pages++
			if name := odfPageName(attr(t, "name"), w.pages, w.drawing); name != "" {
				w.sheet(name)
			}
		}
	case "table-row":
		w.startRows(odfRepeat(t, "number-rows-repeated"))
	case "table-cell", "covered-table-cell":
		w.startCells(odfRepeat(t, "number-columns-repeated"))
	}
}

// odfPageName is the name LibreOffice shows for the nth page of a presentation or drawing
// named name: a page the user did not name is stored under the API's name for it, "page"
// and its number ("page3"), and shown as "Slide 3" (Impress) or "Page 3" (Draw).
func odfPageName(name string, n int, drawing bool) string {
	if name != "page"+strconv.Itoa(n) {
		return name
	}
	if drawing {
		return "Page " + strconv.Itoa(n)
	}
	return "Slide " + strconv.Itoa(n)
}

// sheet starts a section under a spreadsheet's sheet or a slide.
func (w *odfWalker) sheet(name string) {
	w.heading(1, name)
}

func (w *odfWalker) para() *odfPara {
	if len(w.paras) == 0 {
		return nil
	}
	return w.paras[len(w.paras)-1]
}

func (w *odfWalker) text(data []byte) {
	if w.math != nil {
		w.math.text(data)
		return
	}
	p := w.para()
	if p == nil || w.skip > 0 {
		return
	}
	for _, r := range string(data) {
		if p.afterMath && !p.space && !strings.ContainsRune(" \t\n\r.,;:!?)]}", r) {
			p.text.WriteByte(' ')
		}
		p.afterMath = false
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			if !p.space {
				p.text.WriteByte(' ')
				p.space = true
			}
			continue
		}
		p.text.WriteRune(r)
		p.space = false
	}
}

func (w *odfWalker) end(t xml.EndElement) {
	if !w.inBody {
		w.lists.styles.end(t)
		return
	}
	if w.math != nil {
		if w.math.end(t) {
			text := w.math.String()
			w.math = nil
			w.addMath(text)
		}
		return
	}
	if w.skip > 0 {
		w.skip--
		return
	}
	switch t.Name.Local {
	case "body":
		w.inBody = t.Name.Space != "office"
	case "p", "h":
		if len(w.paras) == 0 {
			return
		}
		p := w.paras[len(w.paras)-1]
		w.paras = w.paras[:len(w.paras)-1]
		w.endPara(p)
	case "note-body":
		w.inNote--
	case "annotation":
		w.shown--
	case "number": // a stored label (text:number), read: apart from the text after it
		if p := w.para(); p != nil && t.Name.Space == "text" && !p.space {
			p.text.WriteByte(' ')
			p.space = true
		}
	case "list":
		if t.Name.Space == "text" {
			w.lists.endList()
		}
	case "list-item", "list-header":
		if t.Name.Space == "text" {
			w.lists.endItem()
		}
	case "table-cell", "covered-table-cell":
		if w.shownText.Len() > 0 && w.inCell() {
			w.cell().WriteString(w.shownText.String())
			w.shownText.Reset()
		}
		w.endCell()
	case "table-row":
		if row := w.endRow(); row != "" {
			w.write(row)
		}
	case "table":
		if !w.inCell() {
			w.write("\n")
		}
		if w.sheetTable && !w.inCell() && t.Name.Space == "table" {
			w.sheetTable = false
			for _, s := range w.sheetCharts {
				w.body.WriteString(s + "\n\n")
			}
			w.sheetCharts = nil
		}
	}
}

// endPara places a finished paragraph or heading: in a note, among the notes; in a
// table cell, in it; a heading in the body starts a section; else in the body.
func (w *odfWalker) endPara(p *odfPara) {
	text := p.text.String()
	switch {
	case strings.TrimSpace(text) == "":
	case w.inNote > 0:
		w.notes.WriteString(text)
		w.notes.WriteString("\n\n")
	case w.shown > 0:
		w.shownText.WriteString(text + " ")
	case w.inCell():
		w.cell().WriteString(text + " ")
	case p.level > 0 && len(w.paras) == 0:
		w.heading(p.level, strings.Join(strings.Fields(text), " "))
	default:
		w.body.WriteString(text)
		w.body.WriteString("\n\n")
	}
}

func (w *odfWalker) write(s string) { w.tables.write(&w.body, s) }
