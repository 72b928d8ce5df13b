package pdftext

import (
	"fmt"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// twoFonts is a one-page PDF whose content draws with F1 (font1) and F2 (font2).
func twoFonts(font1, font2, content string) []byte {
	return testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> /Contents 4 0 R >>"),
		testdocs.Stream("", []byte(content)),
		[]byte(font1),
		[]byte(font2),
	)
}

// TestTableCellFiles: faults found in the table-heavy corpora (tabula, camelot) and
// pdfcpu's samples, each as the producer wrote it.
func TestTableCellFiles(t *testing.T) {
	times := "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Italic >>"
	symbol := "<< /Type /Font /Subtype /Type1 /BaseFont /Symbol >>"
	unknown := "<< /Type /Font /Subtype /Type1 /BaseFont /Unknown >>" // no Widths: guessed
	tests := []struct {
		name string
		data []byte
		want string
	}{
		// tabula's eu-025.pdf: "v = 2, p < 0.0005", the standard Symbol font's "=" and "<"
		// (no Widths) each set by its own Tm a quarter em after a Times letter, the "2,"
		// and "0.0005" after them; read with the Symbol font's own widths
		{"the standard Symbol font's widths", twoFonts(times, symbol,
			"BT /F1 10 Tf 1 0 0 1 100 700 Tm (v) Tj 14 0 Td (2,) Tj ET BT /F2 10 Tf 1 0 0 1 107.1 700 Tm (=) Tj ET"+
				"BT /F1 10 Tf 1 0 0 1 100 688 Tm (p) Tj 15 0 Td (0.05) Tj ET BT /F2 10 Tf 1 0 0 1 107.6 688 Tm (<) Tj ET"),
			"v = 2,\np < 0.05"},
		{"the Symbol font's widths move a TJ's glyphs", twoFonts(times, symbol,
			"BT /F1 10 Tf 1 0 0 1 100 700 Tm (v) Tj 14 0 Td (2,) Tj 0 -12 Td (6) Tj ET BT /F2 10 Tf 1 0 0 1 90 700 Tm [(=) -1161 (=)] TJ ET"),
			"= v = 2,\n6"},
		// pdfcpu's fonts/core/Symbol.pdf: the Symbol encoding's whole chart; "∼", the
		// fraktur letters, set relations and angle brackets read as nothing before
		{"the Symbol font's whole encoding", twoFonts(times, symbol,
			"BT /F2 10 Tf 1 0 0 1 100 700 Tm (\\176\\301\\304\\314\\341) Tj ET"),
			"∼ℑ⊗⊂\u2329"}, // U+2329, as pdftotext prints it
		// the gap to a glyph whose width is guessed runs from where the glyph before it
		// ends, by a width that is sure, to its origin: a word gap as for any font
		{"a glyph of guessed width after a known one: the gap is sure", twoFonts(times, unknown,
			"BT /F1 10 Tf 1 0 0 1 100 700 Tm (v) Tj 20 0 Td (2,) Tj ET BT /F2 10 Tf 1 0 0 1 107.1 700 Tm (x) Tj ET"),
			"v x 2,"},
		// after a glyph of guessed width it is not: a quarter em by the guess stays a word
		{"a glyph after one of guessed width: the gap is unsure", twoFonts(unknown, times,
			"BT /F1 10 Tf 1 0 0 1 100 700 Tm (ab) Tj ET BT /F2 10 Tf 1 0 0 1 112.5 700 Tm (cd) Tj ET"),
			"abcd"},
	}
	// pdfcpu's annotations/FreeTextAnnotation.pdf: a free text note without an appearance
	// stream, on a page of lines only (refused as "no text")
	freeTextDrawn := func(ap, formDict string) []byte {
		return testdocs.RawPDF(1,
			[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
			[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 595 842] >>"),
			[]byte("<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Annots [5 0 R] >>"),
			testdocs.Stream("", []byte("0 0 m 595 842 l s")),
			[]byte("<< /Type /Annot /Subtype /FreeText /Rect [200 300 400 500] /DA ( 0 1 0 rg)"+ap+
				" /Contents <feff004e006f00740065000a006c0069006e00650020> >>"),
			testdocs.Stream(formDict+"/BBox [0 0 200 200] /Resources << /Font << /F1 7 0 R >> >>",
				[]byte("BT /F1 10 Tf 2 180 Td (Drawn) Tj ET")),
			[]byte(simpleFont("")),
		)
	}
	freeText := func(ap string) []byte {
		return freeTextDrawn(ap, "/Type /XObject /Subtype /Form ")
	}
	// pdfcpu's form/demo/bangla.pdf and hindi.pdf, stamp/text/utf8/Hindi.pdf: Unifont drawn
	// in text order, unshaped; a line whose vowel sign ends a word ("कि") tells, and the
	// page's other lines, whose signs are inside words ("महिला"), were reordered as if
	// shaped ("महलिा")
	devanagari := "/ToUnicode 6 0 R"
	unshaped := pdfWith(simpleFont(devanagari),
		"1 begincodespacerange <00> <FF> endcodespacerange 6 beginbfchar <41> <0915> <42> <093F> <43> <092E> <44> <0939> <45> <0932> <46> <093E> endbfchar",
		"BT /F1 10 Tf 72 700 Td (CDBEF) Tj 0 -12 Td (AB) Tj ET")
	shaped := pdfWith(simpleFont(devanagari),
		"1 begincodespacerange <00> <FF> endcodespacerange 6 beginbfchar <41> <0915> <42> <093F> <43> <092E> <44> <0939> <45> <0932> <46> <093E> endbfchar",
		"BT /F1 10 Tf 72 700 Td (CBDEF) Tj 0 -12 Td (BA) Tj ET")
	// tabula's labor.pdf: two columns 9 pt apart, drawn one after the other, and a drop cap
	// three lines high on the left one's third baseline; the drop cap's em made the gutter
	// too narrow on that line, the band closed there, and the columns were read across,
	// line by line ("underis stood")
	var cols strings.Builder
	cols.WriteString("BT /F1 48 Tf 1 0 0 1 70 661 Tm (T) Tj /F1 11 Tf 1 0 0 1 100 700 Tm 13 TL")
	for i := range 8 {
		fmt.Fprintf(&cols, " (left line %d of it) '", i+1)
	}
	cols.WriteString(" 1 0 0 1 203 700 Tm")
	for i := range 8 {
		fmt.Fprintf(&cols, " (right line %d of it) '", i+1)
	}
	cols.WriteString(" ET")
	var left, right []string
	for i := range 8 {
		left, right = append(left, fmt.Sprintf("left line %d of it", i+1)), append(right, fmt.Sprintf("right line %d of it", i+1))
	}
	left[2] = "T " + left[2]
	tests = append(tests, []struct {
		name string
		data []byte
		want string
	}{
		{"a page drawn in text order leaves signs inside words where they are", unshaped, "महिला\nकि"},
		{"a page drawn shaped has them moved after their consonant", shaped, "महिला\nकि"},
		{"a drop cap does not hide a narrow gutter", pdfWith(simpleFont(""), "", cols.String()),
			strings.Join(left, "\n") + "\n\n" + strings.Join(right, "\n")},
		// tabula's offense.pdf: a table cell's "1st degree", its "st" a 6.48-point
		// superscript 3.5 points up, past half its size: the "t" started a line of its own
		// with "degree" ("1s" / "t degree")
		{"a superscript's letters stay on their line", pdfWith("<< /Type /Font /Subtype /TrueType /BaseFont /TimesNewRomanPSMT >>", "",
			"BT 9.96 0 0 9.96 120 631.92 Tm /F1 1 Tf (physical, 1) Tj ET BT 6.48 0 0 6.48 163.44 635.4 Tm /F1 1 Tf (st) Tj ET"+
				"BT 9.96 0 0 9.96 167.76 631.92 Tm /F1 1 Tf ( ) Tj ET BT 9.96 0 0 9.96 170.28 631.92 Tm /F1 1 Tf (degree) Tj ET"),
			"physical, 1st degree"},
		{"a free text note without an appearance shows its text", freeText(""), "Note\nline"},
		{"one with an appearance shows that", freeText(" /AP << /N 6 0 R >>"), "Drawn"},
		// pdf-lib's sample_form.pdf (Acrobat): seven filled fields' appearance streams
		// hold /BBox, /Resources and /Length only; poppler draws them as forms
		{"an appearance without /Subtype /Form shows too", freeTextDrawn(" /AP << /N 6 0 R >>", ""), "Drawn"},
		{"an image where an appearance should be does not", freeTextDrawn(" /AP << /N 6 0 R >>", "/Subtype /Image "), ""},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { readsAs(t, "", tt.data, tt.want) })
	}
}
