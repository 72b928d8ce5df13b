package pdftext

import (
	"bytes"
	"compress/zlib"
	"slices"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// TestReaderCorpusFiles: what the test files of PDF readers (pdf.js, pdfium) showed the
// reader missing or reading wrong, each as pdftotext reads it. Each case fails without its
// fix: an empty ToUnicode map (font.go), a page's media box (pagebox.go), a stream's /Length
// (streamlen.go), an Adobe-Identity font without a map or a program (font.go), a negative
// font size (interp.go), ZapfDingbats without an encoding (dingbats.go), /Predictor 1 (filters.go).
func TestReaderCorpusFiles(t *testing.T) {
	emptyToUnicode := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n" +
		"1 begincodespacerange <00> <ff> endcodespacerange\n0 beginbfchar\n\nendbfchar\nendcmap end end"
	// pypdf's rewrite of a New York tax form (PyMuPDF's test_2954.pdf): the map of every
	// Arial font maps codes 0–2 to U+0000 and nothing else
	nulToUnicode := strings.ReplaceAll("/CIDInit /ProcSet findresource begin|12 dict begin|begincmap|/CMapName /Adobe-Identity-UCS def|/CMapType 2 def|"+
		"1 begincodespacerange|<0000> <FFFF>|endcodespacerange|3 beginbfchar|<0000> <0000>|<0001> <0000>|<0002> <0000>|endbfchar|endcmap|"+
		"CMapName currentdict /CMap|defineresource pop|end end|", "|", "\r")
	symbolicTrueType := func(toUnicode string) []byte {
		return pdfWithFont("<< /Type /Font /Subtype /TrueType /BaseFont /X /Encoding /WinAnsiEncoding "+widths+strings.Repeat("500 ", 256)+
			"] /FontDescriptor 7 0 R /ToUnicode 6 0 R >>",
			"BT /F1 10 Tf 72 700 Td (Voucher) Tj ET",
			testdocs.Stream("", []byte(toUnicode)), []byte("<< /Type /FontDescriptor /FontName /X /Flags 4 >>"))
	}
	// one page framing the lower half of what the content draws, as Prawn and iText's
	// vouchers do (pdf.js's issue1350.pdf)
	framed := func(box string) []byte {
		return testdocs.RawPDF(1,
			[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
			[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 "+box+" >>"),
			[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
			testdocs.Stream("", []byte("BT /F1 10 Tf 72 100 Td (shown) Tj 0 600 Td (above the page) Tj -200 -600 Td (left of it) Tj 750 0 Td (right of it) Tj ET")),
			[]byte(simpleFont("")),
		)
	}
	// pdfium's hello_world.pdf leaves a content stream's /Length out on purpose;
	// bug_680376.pdf gives /Length 0
	content := func(dict string) []byte {
		return testdocs.RawPDF(1,
			[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
			[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
			[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
			[]byte(dict+"\nstream\nBT /F1 10 Tf 72 700 Td (measured to its end) Tj ET\nendstream"),
			[]byte(simpleFont("")),
		)
	}
	// AutoCAD writes /DecodeParms << /Predictor 1 >> (no prediction) on its Flate streams
	// (pdf.js's Test-plusminus.pdf)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte("BT /F1 10 Tf 72 700 Td (no prediction) Tj ET"))
	zw.Close()
	predictorOne := testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
		testdocs.Stream("/Filter /FlateDecode /DecodeParms << /Predictor 1 >>", z.Bytes()),
		[]byte(simpleFont("")),
	)
	identityTo := func(toUnicode, descriptor string, more ...[]byte) []byte {
		return pdfWithFont("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [6 0 R]"+toUnicode+" >>",
			"BT 3 Tr /F1 10 Tf 72 700 Td <041F04400438043204350442> Tj ET", // "Привет", drawn invisible
			append([][]byte{[]byte("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /DW 500 /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >>" + descriptor + " >>")}, more...)...)
	}
	identity := func(descriptor string) []byte { return identityTo("", descriptor) }
	// a subset embedded without a cmap, its ToUnicode entry the name of the identity CMap
	// (Solid Converter PDF: PDFBox's sample_fonts_solidconvertor.pdf)
	namedIdentity := identityTo(" /ToUnicode /Identity-H", " /FontDescriptor << /FontFile2 7 0 R >>", testdocs.Stream("", []byte("not a font")))
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"a symbolic TrueType font whose ToUnicode maps nothing reads by its encoding", symbolicTrueType(emptyToUnicode), "Voucher"},
		{"a symbolic TrueType font whose ToUnicode maps only codes to U+0000 reads by its encoding", symbolicTrueType(nulToUnicode), "Voucher"},
		{"text off the media box is dropped", framed("/MediaBox [0 0 612 400]"), "shown"},
		{"the media box's corners in any order", framed("/MediaBox [612 400 0 0]"), "shown"},
		{"without a media box nothing is dropped", framed(""), "above the page left of it right of it shown"},
		{"a content stream without /Length", content("<< >>"), "measured to its end"},
		{"a content stream of /Length 0", content("<< /Length 0 >>"), "measured to its end"},
		{"a content stream of /Length too long", content("<< /Length 70 >>"), "measured to its end"},
		{"an Adobe-Identity font without ToUnicode or program reads its CIDs as Unicode", identity(""), "Привет"},
		{"a ToUnicode entry naming Identity-H reads the codes as Unicode", namedIdentity, "Привет"},
		{"ZapfDingbats' codes read as their dingbats", pdfWith("<< /Type /Font /Subtype /Type1 /BaseFont /ZapfDingbats >>", "",
			"BT /F1 10 Tf 72 700 Td (34l\\254 \\250n) Tj ET"), "✓✔●① ♣■"},
		{"a Flate stream of /Predictor 1", predictorOne, "no prediction"},
		{"a negative font size turns words, it does not part their letters", pdfWith(simpleFont(""), "",
			"BT /F1 -10 Tf 1 0 0 1 300 700 Tm (Authority) Tj 1 0 0 1 300 680 Tm (This agreement) Tj ET"), "Authority This agreement"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, err := Read(tt.data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// the words, in any order: where layout puts them is not what is tested
			got, want := strings.Fields(pages[0].Text), strings.Fields(tt.want)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got %q, want the words of %q", pages[0].Text, tt.want)
			}
		})
	}
}

// TestReaderCorpusFilesUnchanged: what the fixes above leave as it was. A ToUnicode map that
// maps some codes still gives a symbolic TrueType font's text alone; an Adobe-Identity font
// whose widths number glyphs below 32 (a system font's glyph IDs, pdf.js's
// ThuluthFeatures.pdf) or that embeds its program is not read as Unicode; a stream whose
// /Length is right is read as long as it says.
func TestReaderCorpusFilesUnchanged(t *testing.T) {
	identity := func(extra string) []byte {
		return pdfWithFont("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [6 0 R] >>",
			"BT /F1 10 Tf 72 700 Td <0003001300140015> Tj ET",
			[]byte("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /DW 500 /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >>"+extra+" >>"))
	}
	// "endstream" inside the data of a stream whose /Length is right
	inside := pdfWith(simpleFont(""), "", "BT /F1 10 Tf 72 700 Td (before) Tj ET % endstream\nBT /F1 10 Tf 72 600 Td (after) Tj ET")
	tests := []struct {
		name string
		data []byte
	}{
		{"glyph-numbered widths", identity(" /W [3 [250] 19 [500 500 500]]")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, err := Read(tt.data, Options{})
			if err == nil && strings.TrimSpace(pages[0].Text) != "" {
				t.Errorf("got %q, want no text", pages[0].Text)
			}
		})
	}
	t.Run("endstream inside the data", func(t *testing.T) {
		pages, err := Read(inside, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(strings.Fields(pages[0].Text), " "); got != "before after" {
			t.Errorf("got %q, want %q", got, "before after")
		}
	})
}
