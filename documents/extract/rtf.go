package extract

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// readRTF reads Rich Text Format: the text of the body with paragraphs (\par), tabs and
// table rows (\cell, \row), characters given as \'hh in the document's code page (\ansicpg)
// or as \uN, split at headings (paragraphs whose style is named "heading N" or that have
// an \outlinelevel), then the footnotes and endnotes, as a DOCX's are read (a note stands
// in its paragraph where it is cited), list items with the labels the writer put before them
// (\listtext: "2.", "•"). Font, colour and style tables, document information, pictures,
// embedded objects, field instructions, headers and footers and any ignorable
// destination (\*) are skipped, and so is hidden text (\v), as pandoc skips it. It is a
// reader for text, not a renderer.
func readRTF(b *budget, data []byte) (*Document, error) {
	if !strings.HasPrefix(string(data[:min(len(data), 6)]), `{\rtf`) {
		return nil, fmt.Errorf("%w: it does not start as RTF does", ErrCorrupt)
	}
	r := &rtfReader{data: data, dec: charmap.Windows1252, cur: rtfGroup{uc: 1, font: -1}, styles: map[int]int{}, fontPages: map[int]int{}, ansiFonts: map[int]bool{}, symbolFonts: map[int]bool{}}
	r.doc = &Document{Format: "rtf"}
	if err := r.read(b); err != nil {
		return nil, err
	}
	r.endPara()
	r.finish()
	for _, notes := range []struct {
		heading string
		text    *strings.Builder
	}{{"Footnotes", &r.notes}, {"Endnotes", &r.endnotes}} {
		if notes.text.Len() > 0 {
			r.restart(notes.heading)
			r.body.WriteString(notes.text.String())
			r.finish()
		}
	}
	return r.doc, nil
}

// rtfGroup is the state a group ({…}) opens with and restores when it closes.
type rtfGroup struct {
	// skip says the group's text is not read (a destination such as the font table).
	skip bool
	// style is the paragraph style in force (\sN), outline the \outlinelevel plus one.
	style, outline int
	uc             int
	// styleSheet says the group is the stylesheet or an entry of it.
	styleSheet bool
	// hidden says the text is hidden (\v: not shown or printed).
	hidden bool
	// note says the group is a footnote or endnote (\footnote, with \ftnalt an endnote).
	note, endnote bool
	// font is the font in force (\fN; -1: the default font, \deffN), whose character set
	// decodes the bytes of its text; fontTable says the group is the font table or in it.
	font      int
	fontTable bool
	// listText says the group is a list item's label as the writer drew it (\listtext,
	// \pntext: "2.", "•", "iv)"), which is read; its tabs are spaces.
	listText bool
}

type rtfReader struct {
	sectioner
	data  []byte
	pos   int
	dec   encoding.Encoding
	stack []rtfGroup
	cur   rtfGroup
	// para is the paragraph being read; pending bytes from \'hh wait to be decoded together
	// (a code page may spend two bytes on a character).
	para    strings.Builder
	pending []byte
	// skipChars counts the characters still to skip after a \uN (its fallback).
	skipChars int
	// styles maps style numbers to heading levels; entry is the stylesheet entry being read.
	styles    map[int]int
	entry     strings.Builder
	entryNum  int
	destStart bool
	// fontPages maps fonts to the code pages of their character sets (\fcharsetN, \cpgN);
	// fontEntry is the font table's entry being read, defaultFont \deffN.
	fontPages map[int]int
	// ansiFonts holds the fonts of the ANSI character set (\fcharset0), read in the
	// document's code page unless their bytes are not of it
	ansiFonts map[int]bool
	// symbolFonts holds the fonts of the symbol character set (\fcharset2: Wingdings,
	// Symbol), whose codes are pictures rather than letters
	symbolFonts            map[int]bool
	fontEntry, defaultFont int
	// notes and endnotes are the notes read, put after the text as a DOCX's are; outer is
	// the text of the paragraph a note stands in, read on after the note.
	notes, endnotes strings.Builder
	outer           string
}

// rtfMaxDepth bounds how deep RTF groups nest. It is not MaxDepth: Outlook's HTML kept in
// RTF (\fromhtml1) opens a group for each tag it leaves open, thousands deep, and a group
// costs only its state on a stack (no recursion), some 60 bytes a level.
const rtfMaxDepth = 10_000

// rtfSkipped destinations hold no text of the document.
var rtfSkipped = map[string]bool{
	"fonttbl": true, "colortbl": true, "info": true, "pict": true, "object": true,
	"objdata": true, "fldinst": true, "header": true, "headerl": true, "headerr": true,
	"headerf": true, "footer": true, "footerl": true, "footerr": true, "footerf": true,
	"listtable": true, "listoverridetable": true, "rsidtbl": true, "generator": true,
	"themedata": true, "colorschememapping": true, "latentstyles": true, "datastore": true,
	"xmlnstbl": true, "filetbl": true, "revtbl": true, "pgdsctbl": true, "bkmkstart": true,
	"bkmkend": true, "annotation": true, "atnid": true, "atnauthor": true,
	"pntxta": true, "pntxtb": true, "xe": true, "tc": true, "nonshppict": true,
	"blipuid": true, "mmathPr": true, "wgrffmtfilter": true, "fchars": true, "lchars": true,
}

var rtfSymbols = map[string]string{
	"par": "\n", "line": "\n", "sect": "\n", "page": "\n", "tab": "\t", "cell": "\t",
	"row": "\n", "emdash": "—", "endash": "–", "lquote": "‘", "rquote": "’",
	"ldblquote": "“", "rdblquote": "”", "bullet": "•", "emspace": " ", "enspace": " ",
	"qmspace": " ", "nestcell": "\t", "nestrow": "\n",
}

func (r *rtfReader) read(b *budget) error {
	for n := 0; r.pos < len(r.data); n++ {
		if n%65536 == 0 {
			if err := b.alive(); err != nil {
				return err
			}
		}
		c := r.data[r.pos]
		switch c {
		case '{':
			r.pos++
			if len(r.stack) >= rtfMaxDepth {
				return fmt.Errorf("%w: its groups nest too deep", ErrCorrupt)
			}
			r.stack = append(r.stack, r.cur)
			r.destStart = true
			continue
		case '}':
			r.pos++
			r.flushBytes()  // the group's bytes, in its font's code page
			r.skipChars = 0 // a \uN's fallback ends with its group
			if r.cur.styleSheet && len(r.stack) > 0 && r.stack[len(r.stack)-1].styleSheet {
				r.endStyle()
			}
			if r.cur.note && len(r.stack) > 0 && !r.stack[len(r.stack)-1].note {
				r.endNote()
			}
			if len(r.stack) > 0 {
				r.cur = r.stack[len(r.stack)-1]
				r.stack = r.stack[:len(r.stack)-1]
				if len(r.stack) == 0 && !bytes.ContainsAny(r.data[r.pos:], `\{`) {
					// the document's group is closed and no control word or group
					// follows: the rest is not RTF (the NUL byte rtfparserkit's test
					// files end with), as Word and pandoc read it. One that holds more
					// RTF is read on: a stray brace closed the group too early.
					return nil
				}
			}
		case '\\':
			r.control()
		case '\r', '\n': // no text, and not the end of a group's start: "{\n\*\latentstyles"
			r.pos++
			continue
		default:
			r.pos++
			if c >= 0x80 { // a byte of the code page written as it is, not as \'hh
				r.byte(c)
			} else {
				r.char(c)
			}
		}
		r.destStart = false
		if r.para.Len()+r.body.Len()+r.notes.Len()+r.endnotes.Len() > MaxTextBytes {
			return fmt.Errorf("%w: it holds more than %s of text", ErrTooBig, mb(MaxTextBytes))
		}
	}
	return nil
}

// control reads a control word or symbol at r.pos.
func (r *rtfReader) control() {
	start := r.destStart
	r.pos++
	if r.pos >= len(r.data) {
		return
	}
	c := r.data[r.pos]
	if !isLetter(c) {
		r.pos++
		switch c {
		case '\'':
			if r.pos+2 <= len(r.data) {
				if v, err := strconv.ParseUint(string(r.data[r.pos:r.pos+2]), 16, 8); err == nil {
					r.pos += 2
					r.byte(byte(v))
				}
			}
		case '*':
			// an ignorable destination only where a group begins: StarWriter writes
			// "\*\cs7" amid a run's formatting, before the run's text
			if start {
				r.cur.skip = r.cur.skip || !r.cur.styleSheet
			}
			r.destStart = start
		case '~':
			r.text("\u00a0")
		case '_':
			r.text("-")
		case '\\', '{', '}':
			r.char(c)
		case '\n', '\r':
			r.text("\n")
		}
		return
	}
	wordStart := r.pos
	for r.pos < len(r.data) && isLetter(r.data[r.pos]) && r.pos-wordStart < 32 {
		r.pos++
	}
	word := string(r.data[wordStart:r.pos])
	num, hasNum := 0, false
	numStart := r.pos
	if r.pos < len(r.data) && r.data[r.pos] == '-' {
		r.pos++
	}
	for r.pos < len(r.data) && r.data[r.pos] >= '0' && r.data[r.pos] <= '9' && r.pos-numStart < 10 {
		r.pos++
		hasNum = true
	}
	if hasNum {
		num, _ = strconv.Atoi(string(r.data[numStart:r.pos]))
	} else {
		r.pos = numStart
	}
	if r.pos < len(r.data) && r.data[r.pos] == ' ' {
		r.pos++
	}
	r.word(word, num, hasNum, start)
}

func (r *rtfReader) word(word string, num int, hasNum, destStart bool) {
	switch {
	case word == "stylesheet":
		r.cur.styleSheet = true
		return
	case r.cur.styleSheet && word == "s" && hasNum:
		r.entryNum = num
		return
	case r.cur.styleSheet && (word == "outlinelevel") && hasNum && num >= 0 && num <= 8:
		r.styles[r.entryNum] = num + 1
		return
	case (word == "listtext" || word == "pntext") && destStart:
		r.cur.listText = true
		return
	case word == "tab" && r.cur.listText:
		r.listSpace()
		return
	case word == "fonttbl":
		r.cur.skip, r.cur.fontTable = true, true
		return
	case r.cur.fontTable && hasNum && word == "f":
		r.fontEntry = num
		return
	case r.cur.fontTable && hasNum && word == "fcharset" && num == 0:
		r.ansiFonts[r.fontEntry] = true
		return
	case r.cur.fontTable && hasNum && word == "fcharset" && num == 2:
		r.symbolFonts[r.fontEntry] = true
		return
	case r.cur.fontTable && hasNum && (word == "fcharset" || word == "cpg"):
		if cp := charsetPage(num); word == "cpg" || cp != 0 {
			if word == "cpg" {
				cp = num
			}
			r.fontPages[r.fontEntry] = cp
		}
		return
	case word == "deff" && hasNum:
		r.defaultFont = num
	case word == "f" && hasNum && !r.cur.styleSheet:
		r.flushBytes()
		r.cur.font = num
	case word == "plain": // character formatting back to the default
		r.flushBytes()
		r.cur.hidden, r.cur.font = false, -1
	case rtfSkipped[word] && destStart:
		r.cur.skip = true
		return
	case word == "footnote" && destStart && !r.cur.skip && !r.cur.note:
		r.flushBytes()
		r.outer = r.para.String()
		r.para.Reset()
		r.cur.note = true
		return
	case word == "ftnalt" && r.cur.note:
		r.cur.endnote = true
		return
	case word == "bin" && hasNum && num > 0:
		// binary data, a picture's bytes: the next num bytes are not RTF, whatever
		// braces and backslashes they hold
		r.pos += min(num, len(r.data)-r.pos)
		return
	case word == "mac": // the Macintosh character set, unless \ansicpgN names another
		r.dec = charmap.Macintosh
	case word == "pc" || word == "pca": // IBM PC's code page 437, or 850, as pandoc reads them
		r.dec = codePage(map[string]int{"pc": 437, "pca": 850}[word])
	case word == "ansicpg" && hasNum:
		r.dec = codePage(num)
	case word == "uc" && hasNum && num >= 0 && num < 10:
		r.cur.uc = num
	case word == "u" && hasNum:
		if num < 0 {
			num += 65536
		}
		if r.cur.listText && num >= 0xF000 && num <= 0xF0FF {
			// a symbol font's code in the private-use area (Wingdings' square bullet
			// U+F0A7) as a label: a bullet, as a DOCX's bullets read
			num = '•'
		}
		r.text(string(rune(num)))
		r.skipChars = r.cur.uc
	case word == "pard":
		r.cur.style, r.cur.outline = 0, 0
	case word == "v":
		r.cur.hidden = !hasNum || num != 0
	case word == "s" && hasNum:
		r.cur.style = num
	case word == "outlinelevel" && hasNum && num >= 0 && num <= 8:
		r.cur.outline = num + 1
	case word == "par" || word == "sect" || word == "page":
		if !r.cur.skip {
			r.endPara()
		}
	case rtfSymbols[word] != "":
		r.text(rtfSymbols[word])
	}
}

func (r *rtfReader) char(c byte) {
	if r.skipChars > 0 {
		r.skipChars--
		return
	}
	if r.cur.styleSheet {
		r.entry.WriteByte(c)
		return
	}
	if r.cur.skip || r.cur.hidden {
		return
	}
	r.flushBytes()
	if r.cur.listText && (c == '\t' || c == ' ') {
		r.listSpace()
		return
	}
	if c == '\t' {
		r.para.WriteByte('\t')
		return
	}
	r.para.WriteByte(c)
}

// listSpace writes a list label's tab or space as a space: none at the start of a line, nor
// two.
func (r *rtfReader) listSpace() {
	if r.cur.skip || r.cur.hidden {
		return
	}
	r.flushBytes()
	if s := r.para.String(); s != "" && !strings.HasSuffix(s, "\n") && !strings.HasSuffix(s, " ") {
		r.para.WriteByte(' ')
	}
}

func (r *rtfReader) byte(c byte) {
	if r.skipChars > 0 {
		r.skipChars--
		return
	}
	if r.cur.skip || r.cur.styleSheet || r.cur.hidden {
		return
	}
	r.pending = append(r.pending, c)
}

func (r *rtfReader) text(s string) {
	if r.cur.skip || r.cur.styleSheet || r.cur.hidden {
		return
	}
	r.flushBytes()
	r.para.WriteString(s)
}

func (r *rtfReader) flushBytes() {
	if len(r.pending) == 0 {
		return
	}
	dec := r.dec
	font := r.cur.font
	if font < 0 {
		font = r.defaultFont
	}
	if r.cur.listText && r.symbolFonts[font] && len(bytes.TrimSpace(r.pending)) > 0 {
		// a list label drawn in a picture font (Wingdings' \'a7, a square): a bullet,
		// as a DOCX's bullets and the label's private-use codes (\u61607) read
		r.para.WriteString("•")
		r.pending = r.pending[:0]
		return
	}
	out, err := dec.NewDecoder().Bytes(r.pending)
	if cp, ok := r.fontPages[font]; ok {
		// a font's character set, unless its bytes are not of it (LibreOffice gives
		// OpenSymbol \fcharset128 and writes its bullets as single bytes)
		if o, e := codePage(cp).NewDecoder().Bytes(r.pending); e == nil && !bytes.ContainsRune(o, utf8.RuneError) {
			out, err = o, nil
		}
	}
	if (err != nil || bytes.ContainsRune(out, utf8.RuneError)) && r.ansiFonts[font] {
		// an ANSI font's bytes that are not of a double-byte document page: Windows-1252's
		// (a Latin font's "J\'e4rvi" in a Shift-JIS document), as its character set says
		out, err = charmap.Windows1252.NewDecoder().Bytes(r.pending)
	}
	if err != nil {
		out = []byte(strings.ToValidUTF8(string(r.pending), "\uFFFD"))
	}
	r.para.Write(out)
	r.pending = r.pending[:0]
}

// endStyle records a stylesheet entry whose name says it is a heading ("heading 2").
func (r *rtfReader) endStyle() {
	name := strings.TrimSuffix(strings.TrimSpace(r.entry.String()), ";")
	if l := styleLevel(name); l > 0 {
		if _, ok := r.styles[r.entryNum]; !ok {
			r.styles[r.entryNum] = l
		}
	}
	r.entry.Reset()
	r.entryNum = 0
}

// endNote ends a note: its last paragraph goes among the notes, and the paragraph it
// stands in is read on.
func (r *rtfReader) endNote() {
	r.endPara()
	r.para.Reset()
	r.para.WriteString(r.outer)
	r.outer = ""
}

// endPara ends the paragraph: in a note, among the notes; a heading starts a section,
// other text goes to the body.
func (r *rtfReader) endPara() {
	r.flushBytes()
	text := r.para.String()
	r.para.Reset()
	if r.cur.note {
		notes := &r.notes
		if r.cur.endnote {
			notes = &r.endnotes
		}
		if strings.TrimSpace(text) != "" {
			notes.WriteString(strings.TrimSpace(text))
			notes.WriteString("\n\n")
		}
		return
	}
	level := r.cur.outline
	if level == 0 {
		level = r.styles[r.cur.style]
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	if level > 0 && !strings.Contains(text, "\t") {
		r.heading(level, strings.Join(strings.Fields(text), " "))
		return
	}
	r.body.WriteString(text)
	r.body.WriteString("\n\n")
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
