package extract

import (
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// readXLSX reads an Excel workbook (Office Open XML, .xlsx): its worksheets (and macro
// sheets' cells) in the
// workbook's order (xl/workbook.xml, through its relationships), hidden ones too, each a
// section under the sheet's name; a sheet's rows in order, a row's cells separated by tabs
// and empty cells and rows left out, as an ODS sheet is read. A cell reads as the text it
// holds (shared strings with their rich runs joined, inline strings; phonetic guides left
// out), TRUE or FALSE, its error (#N/A), a formula's value as last calculated (not the
// formula), a number as Excel shows it by its number format (numfmt.go: #,##0.00 writes
// 1,024,143.41 for a stored 1024143.4067; percent, scientific, fractions, sections and
// conditions, literal text), a General number as the file stores it in its shortest form
// (1700.0 reads 1700, 19.989999999999998 reads 19.99, the same double), or, where its
// number format is a date or time (the
// built-in ones and custom codes such as "dd.mm.yyyy"), the date or time it counts
// ("2023-03-15", "2023-03-15 08:30", "08:30:15", seconds where the format shows them) in the
// workbook's 1900 or 1904 date system. A sheet's charts, and a chart sheet's, read under
// its cells as the words they show (xlsxchart.go); drawings' text boxes, comments and
// headers and footers are left out. A damaged styles or shared strings part costs what
// it holds; a damaged workbook or worksheet refuses the file.
func readXLSX(b *budget, data []byte) (*Document, error) {
	a, main, err := openOOXML(b, data, xlsxKind)
	if err != nil {
		return nil, err
	}
	sheets, date1904, err := workbookSheets(a, main)
	if err != nil {
		return nil, err
	}
	x := &xlsxReader{b: b, a: a, date1904: date1904, tables: tables{dropEmpty: true}}
	x.doc = &Document{Format: "xlsx"}
	part := partOfType(a, main, "sharedStrings")
	if part == "" && a.has("xl/sharedStrings.xml") {
		part = "xl/sharedStrings.xml"
	}
	if part != "" {
		if err := x.readSharedStrings(part); err != nil && !errors.Is(err, ErrCorrupt) {
			return nil, err
		}
	}
	if part := partOfType(a, main, "styles"); part != "" {
		if err := x.readStyles(part); err != nil && !errors.Is(err, ErrCorrupt) {
			return nil, err
		}
	}
	for _, s := range sheets {
		charts, err := x.sheetCharts(s.part)
		if err != nil {
			return nil, err
		}
		if s.chart && len(charts) == 0 {
			continue // a chart sheet whose chart shows no words
		}
		x.heading(1, s.name)
		if !s.chart {
			if err := x.readSheet(s.part); err != nil {
				return nil, err
			}
		}
		if err := x.writeCharts(charts); err != nil {
			return nil, err
		}
	}
	x.finish()
	return x.doc, nil
}

// xlsxSheet is a sheet of a workbook: its name and part, and whether it is a chart sheet
// (a chart and no cells).
type xlsxSheet struct {
	name, part string
	chart      bool
}

// workbookSheets lists the sheets of the workbook part main in its order (sheets whose
// part is missing left out) and says whether dates count from 1904. A
// workbook that lists sheets but has no readable relationships to find their parts by is
// damaged (calamine's issue252.xlsx, whose relationships part is garbled), not empty.
func workbookSheets(a *archive, main string) ([]xlsxSheet, bool, error) {
	rels := map[string]relationship{}
	for _, r := range relationships(a, main) {
		rels[r.id] = r
	}
	var sheets []xlsxSheet
	date1904, listed := false, 0
	extensions := 0 // open extension lists (extLst)
	err := a.walkXML(main, func(tok xml.Token) error {
		if e, ok := tok.(xml.EndElement); ok && e.Name.Local == "extLst" {
			extensions = max(0, extensions-1)
		}
		t, ok := tok.(xml.StartElement)
		if !ok {
			return nil
		}
		switch t.Name.Local {
		case "extLst":
			extensions++
		case "workbookPr":
			// the workbook's own properties, not Excel 2013's extension of the same
			// name (x15:workbookPr chartTrackingRefBase="1" in the extLst after the
			// sheets), which has no date1904 and would set the 1904 system back
			if extensions == 0 {
				v := attr(t, "date1904")
				date1904 = v == "1" || v == "true"
			}
		case "sheet":
			listed++
			r, ok := rels[relID(t)]
			chart := strings.HasSuffix(r.typ, "/chartsheet")
			if ok && !r.external && (isSheetType(r.typ) || chart) && a.has(r.target) {
				sheets = append(sheets, xlsxSheet{name: strings.Join(strings.Fields(attr(t, "name")), " "), part: r.target, chart: chart})
			}
		}
		return nil
	})
	if err == nil && len(sheets) == 0 && listed > 0 && len(rels) == 0 {
		name := path.Join(path.Dir(main), "_rels", path.Base(main)+".rels")
		err = fmt.Errorf("%w: %s, which says where %s's sheets are, is missing or unreadable", ErrCorrupt, name, main)
	}
	return sheets, date1904, err
}

// isSheetType says whether a workbook relationship of type typ is a sheet of cells: a
// worksheet, or an Excel 4.0 macro sheet (xlMacrosheet, xlIntlMacrosheet), whose cells hold
// text and values like a worksheet's (read, never run).
func isSheetType(typ string) bool {
	return strings.HasSuffix(typ, "/worksheet") || strings.HasSuffix(typ, "/xlMacrosheet") || strings.HasSuffix(typ, "/xlIntlMacrosheet")
}

// xlsxReader reads a workbook's parts into doc.
type xlsxReader struct {
	sectioner
	tables
	b *budget
	a *archive
	// strings is the shared strings table; formats what each cell style's number format
	// shows (by the style's index).
	strings  []string
	formats  []*numFormat // nil: General
	date1904 bool
}

// readSharedStrings reads the shared strings table: each string item's text, its rich
// runs joined, its phonetic guide (rPh, a reading of its Japanese) left out. A damaged
// table keeps the strings read before the damage.
func (x *xlsxReader) readSharedStrings(part string) error {
	var cur strings.Builder
	inText, phonetic, size := false, 0, 0
	return x.a.walkXML(part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				cur.Reset()
			case "t":
				inText = phonetic == 0
			case "rPh":
				phonetic++
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "si":
				s := unescapeXString(cur.String())
				size += len(s)
				x.strings = append(x.strings, s)
			case "t":
				inText = false
			case "rPh":
				phonetic--
			}
		case xml.CharData:
			if inText {
				cur.Write(t)
			}
		}
		if size > MaxTextBytes {
			return fmt.Errorf("%w: more than %s of text", ErrTooBig, mb(MaxTextBytes))
		}
		return nil
	})
}

// xlsxDateKind is what a number format makes of a number: the number itself (0), or
// what of a date and time it shows.
type xlsxDateKind uint8

const (
	xlsxNumber  xlsxDateKind = 0
	xlsxDate    xlsxDateKind = 1 << iota // the day
	xlsxClock                            // hours and minutes
	xlsxSeconds                          // and seconds
	xlsxElapsed                          // hours counted past 24 ([h]:mm)
)

// readStyles reads the number format of each cell style (cellXfs), from the built-in
// formats' ids and the custom formats' codes (numfmt.go).
func (x *xlsxReader) readStyles(part string) error {
	custom := map[string]string{}
	var ids []string
	inCellXfs := false
	err := x.a.walkXML(part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "numFmt":
				custom[attr(t, "numFmtId")] = attr(t, "formatCode")
			case "cellXfs":
				inCellXfs = true
			case "xf":
				if inCellXfs {
					ids = append(ids, attr(t, "numFmtId"))
				}
			}
		case xml.EndElement:
			if t.Name.Local == "cellXfs" {
				inCellXfs = false
			}
		}
		return nil
	})
	formats := map[string]*numFormat{}
	for _, id := range ids {
		f, ok := formats[id]
		if !ok {
			code, ok := custom[id]
			if !ok {
				n, _ := strconv.Atoi(id)
				code = builtinCodes[n] // an unknown id: "", General
			}
			if !strings.EqualFold(strings.TrimSpace(code), "general") && code != "" {
				f = parseNumFormat(code)
			}
			formats[id] = f
		}
		x.formats = append(x.formats, f)
	}
	return err
}

// readSheet reads a worksheet's rows into the current section.
func (x *xlsxReader) readSheet(part string) error {
	var val strings.Builder
	typ, style := "", 0
	inValue, inInline, phonetic := false, false, 0
	err := x.a.walkXML(part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				x.startRow()
			case "c":
				if x.inCell() { // a cell left open: damage
					return fmt.Errorf("%w: %s: a cell inside a cell", ErrCorrupt, part)
				}
				typ, style = attr(t, "t"), -1
				if s, err := strconv.Atoi(attr(t, "s")); err == nil {
					style = s
				}
				val.Reset()
				x.startCell()
			case "v":
				inValue = x.inCell()
			case "is":
				inInline = x.inCell()
			case "t":
				inValue = inInline && phonetic == 0
			case "rPh":
				phonetic++
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "v", "t":
				inValue = false
			case "is":
				inInline = false
			case "rPh":
				phonetic--
			case "c":
				if x.inCell() {
					x.cell().WriteString(x.cellText(typ, style, val.String()))
					x.endCell()
				}
			case "row":
				if row := x.endRow(); row != "" {
					x.body.WriteString(row)
					if err := x.b.addText(len(row)); err != nil {
						return err
					}
				}
			}
		case xml.CharData:
			if inValue {
				val.Write(t)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if x.body.Len() > 0 {
		x.body.WriteString("\n")
	}
	return nil
}

// cellText is what a cell of type typ and style style holding value v reads as.
func (x *xlsxReader) cellText(typ string, style int, v string) string {
	switch typ {
	case "s":
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n >= len(x.strings) {
			return ""
		}
		return x.styled(style).formatText(x.strings[n])
	case "inlineStr", "str":
		return x.styled(style).formatText(unescapeXString(v))
	case "b":
		switch strings.TrimSpace(v) {
		case "1", "true":
			return "TRUE"
		case "0", "false":
			return "FALSE"
		}
		return v
	case "e", "d":
		return v
	}
	return formattedNumber(x.styled(style), v, x.date1904)
}

// formattedNumber writes the number v (as stored) by format (nil: General), as Excel shows it;
// v as it is where it is no number.
func formattedNumber(format *numFormat, v string, date1904 bool) string {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return v
	}
	if format == nil {
		return generalNumber(v, f)
	}
	sec, abs := format.section(f)
	switch {
	case sec == nil:
		return generalNumber(v, f)
	case sec.date != xlsxNumber:
		return sec.formatDate(f, date1904)
	case math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) >= 1e15 && !sec.sci:
		return generalNumber(v, f)
	}
	return sec.formatNumber(f, abs, func(g float64) string {
		return generalNumber(strconv.FormatFloat(g, 'g', -1, 64), g)
	})
}

// styled is the number format of cell style style (nil: General, and for a style the
// styles part does not have).
func (x *xlsxReader) styled(style int) *numFormat {
	if style < 0 || style >= len(x.formats) {
		return nil
	}
	return x.formats[style]
}

// generalNumber writes a number of no fixed-point format as the file stores it, in its
// shortest form, to the 15 significant digits Excel shows of any number (its formula bar
// too): the 1700.0 some writers store (Python's repr) reads 1700, and a sum's
// -21.249999999999982 (umya-spreadsheet's issue_296.xlsx) -21.25, as Excel shows them; one
// that form would write with many zeros (1e308, 1.5E-9) stays as written.
func generalNumber(v string, f float64) string {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e15) || math.IsNaN(f) || math.IsInf(f, 0) {
		return v
	}
	f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', 15, 64), 64)
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// serialDate writes the date or time an Excel serial number counts: days since 1899-12-30
// (1900 system, with Lotus 1-2-3's 29 February 1900, which Excel keeps: serial 60; below it
// the days count from 1899-12-31) or 1904-01-01 (1904 system), and the day's fraction,
// rounded to the second or to the fraction of one the format shows (ss.000), on the clock
// the format shows: the date as 2023-03-15 whatever its order in the format (Excel's own
// follows the computer's locale), the time with or without hours or as hours alone ([h],
// h AM/PM), zero-padded hours (hh), the 12-hour clock (AM/PM), hours, minutes or seconds
// counted past the day ([h], [m], [s], negative ones with a minus). Serials out of Excel's range (negative, after 9999) are
// written as numbers.
func serialDate(serial float64, date1904 bool, kind xlsxDateKind, st clockStyle) string {
	elapsed := kind&xlsxElapsed != 0 && kind&xlsxDate == 0
	sign := ""
	if serial < 0 && elapsed {
		serial, sign = -serial, "-"
	}
	if serial < 0 || serial >= 2958466 || math.IsNaN(serial) {
		return generalNumber(strconv.FormatFloat(serial, 'g', -1, 64), serial) // Excel: "#####"
	}
	scale := int64(math.Pow10(min(st.frac, 3)))
	ticks := int64(math.Round(serial * 86400 * float64(scale)))
	days := ticks / (86400 * scale)
	secs := int(ticks % (86400 * scale) / scale)
	sub := ticks % scale
	var out []string
	if kind&xlsxDate != 0 {
		var d time.Time
		switch {
		case date1904:
			d = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(days))
		case days == 60:
			out = append(out, "1900-02-29")
		case days < 60:
			d = time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(days))
		default:
			d = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(days))
		}
		if !d.IsZero() {
			out = append(out, d.Format("2006-01-02"))
		}
	}
	if kind&xlsxClock != 0 {
		hours, total := secs/3600, int64(secs)+days*86400
		ampm := kind&xlsxAMPM != 0 && !elapsed
		if ampm {
			hours = (hours+11)%12 + 1
		}
		var clock string
		switch {
		case elapsed && st.unit == 'm':
			clock = strconv.FormatInt(total/60, 10)
		case elapsed && st.unit == 's':
			clock = strconv.FormatInt(total, 10)
		case elapsed && st.hoursOnly:
			clock = fmt.Sprintf("%0*d", st.hourWidth(), total/3600)
		case st.hoursOnly:
			clock = fmt.Sprintf("%0*d", st.hourWidth(), hours)
		case elapsed:
			clock = fmt.Sprintf("%0*d:%02d", st.hourWidth(), total/3600, secs/60%60)
		case st.noHours:
			clock = fmt.Sprintf("%02d", secs/60%60)
		default:
			clock = fmt.Sprintf("%0*d:%02d", st.hourWidth(), hours, secs/60%60)
		}
		if kind&xlsxSeconds != 0 && !(elapsed && st.unit == 's') {
			clock += fmt.Sprintf(":%02d", secs%60)
		}
		if st.frac > 0 {
			clock += fmt.Sprintf(".%0*d", min(st.frac, 3), sub)
		}
		if ampm {
			clock += map[bool]string{true: " PM", false: " AM"}[secs >= 12*3600]
		}
		out = append(out, sign+clock)
	}
	return strings.Join(out, " ")
}

// unescapeXString undoes the _xHHHH_ escapes spreadsheet strings write characters XML
// cannot hold with (_x000D_ a carriage return, _x005F_ an underscore, a pair of UTF-16
// halves a character beyond the BMP); control characters read as spaces.
func unescapeXString(s string) string {
	if !strings.Contains(s, "_x") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && i+6 < len(s) && s[i+1] == 'x' && s[i+6] == '_' {
			if n, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil {
				r := rune(n)
				if utf16.IsSurrogate(r) && i+13 < len(s) && s[i+7:i+9] == "_x" && s[i+13] == '_' {
					// a character beyond the BMP as its two UTF-16 halves: "_xD801__xDC05_" 𐐅
					if lo, err := strconv.ParseUint(s[i+9:i+13], 16, 16); err == nil {
						if c := utf16.DecodeRune(r, rune(lo)); c != utf8.RuneError {
							b.WriteRune(c)
							i += 13
							continue
						}
					}
				}
				if r < 0x20 || r == 0x7f {
					b.WriteByte(' ')
				} else {
					b.WriteRune(r) // a lone half: U+FFFD, as Excel draws a box
				}
				i += 6
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
