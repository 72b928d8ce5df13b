package extract

import (
	"encoding/xml"
	"errors"
	"strconv"
	"strings"
)

// readPPTX reads a PowerPoint presentation (Office Open XML, .pptx): its slides in the
// presentation's order (ppt/presentation.xml's slide list, through its relationships), each
// a section headed "Slide N: its title" (the title placeholder's text; "Slide N (hidden)"
// for a slide the show skips, which is read too), then the text of its shapes in drawing
// order: text boxes' paragraphs (line breaks and fields as shown), groups' shapes, tables
// row by row (cells separated by tabs); then its speaker notes in a section "Notes" under
// the slide's. A chart reads as the words it shows (pptxchart.go: title, axis titles,
// series and category names). Pictures, SmartArt, comments and the slide number, date,
// header and footer placeholders are left out, and so is the text of masters and layouts. A damaged
// slide refuses the file; damaged notes cost only the notes.
func readPPTX(b *budget, data []byte) (*Document, error) {
	a, main, err := openOOXML(b, data, pptxKind)
	if err != nil {
		return nil, err
	}
	rels := relTargets(a, main)
	var slides []string
	err = a.walkXML(main, func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "sldId" {
			if part := rels[relID(t)]; part != "" && a.has(part) {
				slides = append(slides, part)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s := &sectioner{doc: &Document{Format: "pptx"}}
	for i, part := range slides {
		slide, err := readDrawing(b, a, part, false)
		if err != nil {
			return nil, err
		}
		var notes *drawingText
		if part := partOfType(a, part, "notesSlide"); part != "" {
			if notes, err = readDrawing(b, a, part, true); err != nil && !errors.Is(err, ErrCorrupt) {
				return nil, err
			}
		}
		title := strings.Join(strings.Fields(slide.title.String()), " ")
		if title == "" && strings.TrimSpace(slide.body.String()) == "" && (notes == nil || strings.TrimSpace(notes.body.String()) == "") {
			continue // a slide with no text: no section
		}
		heading := "Slide " + strconv.Itoa(i+1)
		if slide.hidden {
			heading += " (hidden)"
		}
		if title != "" {
			heading += ": " + title
		}
		s.heading(1, heading)
		s.body.WriteString(slide.body.String())
		if notes != nil && strings.TrimSpace(notes.body.String()) != "" {
			s.heading(2, "Notes")
			s.body.WriteString(notes.body.String())
		}
	}
	s.finish()
	return s.doc, nil
}

// drawingText is the text of a slide or notes page: its title placeholder's, and the
// rest of its shapes' in drawing order.
type drawingText struct {
	tables
	title, body strings.Builder
	hidden      bool
	// notes says the page is a notes page.
	notes bool
	// shapes is the shapes open, innermost last; para the paragraph open.
	shapes []*drawingShape
	para   *strings.Builder
	// skip counts the open elements whose text is not read (a markup-compatibility
	// fallback, a left-out placeholder's text body).
	skip, text int
	inText     bool
	titled     bool
}

// drawingShape is an open shape: its placeholder type, whether it is the title, and whether
// its text body is being left out.
type drawingShape struct {
	ph             string
	title, skipped bool
}

// readDrawing reads the slide or notes page part.
func readDrawing(b *budget, a *archive, part string, notes bool) (*drawingText, error) {
	d := &drawingText{notes: notes}
	var rels map[string]string
	var frame graphicFrame
	err := a.walkXML(part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			d.start(t)
			if kind, id := frame.start(t); kind != noGraphic && d.skip == 0 {
				if rels == nil {
					rels = relTargets(a, part)
				}
				if p := rels[id]; p != "" && a.has(p) {
					s, err := kind.read(a, p)
					if err != nil {
						return err
					}
					if s != "" {
						d.body.WriteString(s + "\n")
					}
				}
			}
		case xml.EndElement:
			d.end(t)
			frame.end(t)
		case xml.CharData:
			if d.inText && d.skip == 0 && d.para != nil {
				d.para.Write(t)
			}
		}
		if n := d.body.Len() + d.title.Len(); n > d.text {
			if err := b.addText(n - d.text); err != nil {
				return err
			}
			d.text = n
		}
		return nil
	})
	return d, err
}

// leftOut are the placeholders whose text is not read: the slide number, date, header and
// footer (and a notes page's picture of its slide).
var leftOut = map[string]bool{"sldNum": true, "dt": true, "hdr": true, "ftr": true, "sldImg": true}

func (d *drawingText) shape() *drawingShape {
	if len(d.shapes) == 0 {
		return nil
	}
	return d.shapes[len(d.shapes)-1]
}

func (d *drawingText) start(t xml.StartElement) {
	switch t.Name.Local {
	case "Fallback":
		d.skip++
		return
	}
	if d.skip > 0 {
		return
	}
	switch t.Name.Local {
	case "sld":
		d.hidden = attr(t, "show") == "0" || attr(t, "show") == "false"
	case "sp", "cxnSp", "graphicFrame", "pic":
		d.shapes = append(d.shapes, &drawingShape{})
	case "ph":
		if s := d.shape(); s != nil {
			s.ph = attr(t, "type")
			if (s.ph == "title" || s.ph == "ctrTitle") && !d.titled && !d.notes {
				s.title, d.titled = true, true
			}
		}
	case "txBody":
		if s := d.shape(); s != nil && leftOut[s.ph] && !s.skipped {
			s.skipped = true
			d.skip++
		}
	case "p":
		d.para = &strings.Builder{}
	case "t":
		d.inText = true
	case "br":
		if d.para != nil {
			d.para.WriteByte('\n')
		}
	case "tr":
		d.startRow()
	case "tc":
		d.startCell()
	}
}

func (d *drawingText) end(t xml.EndElement) {
	switch t.Name.Local {
	case "Fallback":
		d.skip = max(0, d.skip-1)
		return
	case "txBody":
		if s := d.shape(); s != nil && s.skipped {
			s.skipped = false
			d.skip = max(0, d.skip-1)
			return
		}
	}
	if d.skip > 0 {
		return
	}
	switch t.Name.Local {
	case "t":
		d.inText = false
	case "p":
		if d.para == nil {
			return
		}
		text := d.para.String()
		d.para = nil
		switch s := d.shape(); {
		case d.inCell():
			d.cell().WriteString(text + " ")
		case strings.TrimSpace(text) == "":
		case s != nil && s.title:
			d.title.WriteString(text + " ")
		default:
			d.body.WriteString(strings.TrimRight(text, " \t\n") + "\n")
		}
	case "tc":
		d.endCell()
	case "tr":
		if row := d.endRow(); row != "" {
			d.write(&d.body, row)
		}
	case "sp", "cxnSp", "graphicFrame", "pic":
		if n := len(d.shapes); n > 0 {
			d.shapes = d.shapes[:n-1]
			if b := d.body.String(); b != "" && !strings.HasSuffix(b, "\n\n") {
				d.body.WriteString("\n")
			}
		}
	}
}
