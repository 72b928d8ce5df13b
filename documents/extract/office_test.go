package extract_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"`

// wordDOCX is a Word document as Word writes one: localised heading styles whose levels
// come from styles.xml, a text box written twice (drawing and VML fallback), a caption, a
// table, footnotes and endnotes with their separators, a comment, a field and a deletion.
func wordDOCX() []byte {
	p := func(style, text string) string {
		s := "<w:p>"
		if style != "" {
			s += `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
		}
		return s + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
	}
	styles := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles ` + wordNS + `>
<w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>
<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="berschrift7"><w:name w:val="heading 7"/></w:style>
<w:style w:type="paragraph" w:styleId="Kapitel8"><w:name w:val="Kapitel acht"/><w:basedOn w:val="Basis8"/></w:style>
<w:style w:type="paragraph" w:styleId="Basis8"><w:name w:val="Basis"/><w:pPr><w:outlineLvl w:val="7"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Loop"><w:name w:val="Loop"/><w:basedOn w:val="Loop"/></w:style>
<w:style w:type="character" w:styleId="Heading9Char"><w:name w:val="heading 9"/></w:style>
</w:styles>`
	body := p("Titel", "Annual report") +
		p("berschrift1", "Introduction") +
		p("", "The opening paragraph.") +
		`<w:p><w:r><w:t>Before the box.</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wps:txbx><w:txbxContent>` +
		p("", "Boxed remark.") + `</w:txbxContent></wps:txbx></w:drawing></mc:Choice><mc:Fallback><w:pict><v:textbox><w:txbxContent>` +
		p("", "Boxed remark.") + `</w:txbxContent></v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>` +
		p("Caption", "Figure 1: Revenue by year") +
		p("berschrift7", "Seventh level") +
		`<w:p><w:r><w:t xml:space="preserve">Prices rose</w:t></w:r><w:r><w:footnoteReference w:id="2"/></w:r>` +
		`<w:del w:id="9" w:author="A"><w:r><w:delText>withdrawn words</w:delText></w:r></w:del>` +
		`<w:commentRangeStart w:id="0"/><w:r><w:t xml:space="preserve"> sharply.</w:t></w:r><w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r></w:p>` +
		`<w:p><w:r><w:t xml:space="preserve">Page </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGE \* MERGEFORMAT </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>7</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>` +
		p("Kapitel8", "Eighth level") +
		`<w:tbl><w:tr><w:tc>` + p("", "Year") + `</w:tc><w:tc>` + p("", "Revenue") + `</w:tc></w:tr>` +
		`<w:tr><w:tc>` + p("", "2025") + p("", "(estimate)") + `</w:tc><w:tc>` + p("", "12 million") + `</w:tc></w:tr></w:tbl>` +
		`<w:p><w:pPr><w:outlineLvl w:val="8"/></w:pPr><w:r><w:t>Ninth level</w:t></w:r></w:p>` +
		p("Loop", "Closing words.")
	document := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`
	note := func(id, typ, text string) string {
		s := `<w:footnote w:id="` + id + `"`
		if typ != "" {
			s += ` w:type="` + typ + `"`
		}
		return s + `>` + p("", text) + `</w:footnote>`
	}
	footnotes := `<?xml version="1.0" encoding="UTF-8"?><w:footnotes ` + wordNS + `>` +
		note("0", "separator", "SEPARATOR") + note("1", "continuationSeparator", "CONTINUATION") +
		note("2", "", "Source: the statistics office.") + `</w:footnotes>`
	endnotes := `<?xml version="1.0" encoding="UTF-8"?><w:endnotes ` + wordNS + `>` +
		strings.ReplaceAll(note("0", "separator", "SEPARATOR")+note("1", "", "Figures are rounded."), "footnote", "endnote") + `</w:endnotes>`
	comments := `<?xml version="1.0" encoding="UTF-8"?><w:comments ` + wordNS + `><w:comment w:id="0">` + p("", "REVIEWER COMMENT") + `</w:comment></w:comments>`
	return testdocs.Zip(
		testdocs.File{Name: "[Content_Types].xml", Body: `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		testdocs.File{Name: "word/document.xml", Body: document},
		testdocs.File{Name: "word/styles.xml", Body: styles},
		testdocs.File{Name: "word/footnotes.xml", Body: footnotes},
		testdocs.File{Name: "word/endnotes.xml", Body: endnotes},
		testdocs.File{Name: "word/comments.xml", Body: comments},
	)
}

func TestDOCX(t *testing.T) {
	doc, err := extract.Bytes(context.Background(), "report.docx", wordDOCX(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []extract.Section{
		{Heading: "", Text: "Annual report"}, // the title, replaced by the first chapter at level 1
		{Heading: "Introduction", Text: "The opening paragraph.\n\nBoxed remark.\n\nBefore the box.\n\nFigure 1: Revenue by year"},
		{Heading: "Introduction › Seventh level", Text: "Prices rose sharply.\n\nPage 7"},
		{Heading: "Introduction › Seventh level › Eighth level", Text: "Year\tRevenue\n2025 (estimate)\t12 million"},
		{Heading: "Introduction › Seventh level › Eighth level › Ninth level", Text: "Closing words."},
		{Heading: "Footnotes", Text: "Source: the statistics office."},
		{Heading: "Endnotes", Text: "Figures are rounded."},
	}
	checkSections(t, doc, "docx", want)
}

// TestDOCXAltText: a picture's description (wp:docPr descr, Word's alt text) reads where
// the picture stands, in brackets as pandoc prints it ("[Cow in pasture]"), once when a fallback
// repeats the drawing; a picture without one adds nothing, nor does a text box's name.
func TestDOCXAltText(t *testing.T) {
	const ns = wordNS + ` xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"`
	drawing := func(attrs string) string {
		return `<w:r><w:drawing><wp:inline><wp:docPr id="1" name="Picture 1"` + attrs + `/></wp:inline></w:drawing></w:r>`
	}
	text := func(s string) string { return `<w:r><w:t xml:space="preserve">` + s + `</w:t></w:r>` }
	for _, c := range []struct{ name, body, want string }{
		{"alone", `<w:p>` + drawing(` descr="Cow in pasture"`) + `</w:p><w:p>` + text("Caption 1") + `</w:p>`, "[Cow in pasture]\n\nCaption 1"},
		{"inline", `<w:p>` + text("See") + drawing(` descr=" A  chart&#xA;of sales "`) + text("below.") + `</w:p>`, "See [A chart of sales] below."},
		{"after a space", `<w:p>` + text("Logo: ") + drawing(` descr="EdgeChat"`) + `</w:p>`, "Logo: [EdgeChat]"},
		{"none", `<w:p>` + text("Plain") + drawing(``) + drawing(` descr=""`) + `</w:p>`, "Plain"},
		{"fallback", `<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps">` + drawing(` descr="Shown once"`) +
			`</mc:Choice><mc:Fallback>` + drawing(` descr="Shown once"`) + `</mc:Fallback></mc:AlternateContent></w:r></w:p>`, "[Shown once]"},
		{"in a cell", `<w:tbl><w:tr><w:tc><w:p>` + drawing(` descr="Map"`) + `</w:p></w:tc><w:tc><w:p>` + text("North") + `</w:p></w:tc></w:tr></w:tbl>`, "[Map]\tNorth"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := testdocs.Zip(testdocs.File{Name: "word/document.xml", Body: `<?xml version="1.0"?><w:document ` + ns + `><w:body>` + c.body + `</w:body></w:document>`})
			doc, err := extract.Bytes(context.Background(), "pictures.docx", data, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "docx", []extract.Section{{Text: c.want}})
		})
	}
}

// TestDOCXSymbols: Word's Insert Symbol writes w:sym, a font and a code; the Symbol font's
// codes read as the Unicode characters they show (as pandoc reads them), a text font's code
// as itself, and a picture font's (Wingdings) as nothing.
func TestDOCXSymbols(t *testing.T) {
	for _, c := range []struct{ font, char, want string }{
		{"Symbol", "F061", "α"},
		{"Symbol", "F0A7", "♣"},
		{"Symbol", "F0B3", "≥"},
		{"Symbol", "0057", "Ω"},
		{"Symbol", "03B1", "α"}, // a Unicode code, past the font's byte codes
		{"Times New Roman", "2014", "—"},
		{"Wingdings", "F0FC", ""},
		{"Symbol", "F0FF", ""},
		{"Symbol", "zz", ""},
		{"Arial", "D800", ""},
	} {
		body := `<w:p><w:r><w:t xml:space="preserve">x </w:t></w:r><w:r><w:sym w:font="` + c.font + `" w:char="` + c.char + `"/></w:r><w:r><w:t xml:space="preserve"> y</w:t></w:r></w:p>`
		data := testdocs.Zip(testdocs.File{Name: "word/document.xml", Body: `<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`})
		doc, err := extract.Bytes(context.Background(), "symbols.docx", data, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := "x " + c.want + " y"
		if c.want == "" {
			want = "x  y"
		}
		if len(doc.Sections) != 1 || doc.Sections[0].Text != want {
			t.Errorf("%s %s: got %+v, want %q", c.font, c.char, doc.Sections, want)
		}
	}
}

// TestDOCXSymbolRuns reads text runs in a symbol font as the font draws them, as w:sym
// codes read (PreviSat's manual writes ω as U+F077 in a Symbol run, which read as a
// private-use code no font here draws).
func TestDOCXSymbolRuns(t *testing.T) {
	for _, c := range []struct{ name, rPr, text, want string }{
		{"private-use code", `<w:rFonts w:ascii="Symbol" w:hAnsi="Symbol"/>`, "\uf077", "ω"},
		{"byte codes", `<w:rFonts w:ascii="Symbol" w:hAnsi="Symbol"/>`, "a+b³", "α+β≥"},
		{"high ANSI only", `<w:rFonts w:hAnsi="Symbol"/>`, "p", "π"},
		{"picture font", `<w:rFonts w:ascii="Wingdings"/>`, "\uf0fcJ", "J"},
		{"unicode in symbol", `<w:rFonts w:ascii="Symbol"/>`, "α—", "α—"},
		{"text font", `<w:rFonts w:ascii="Calibri"/>`, "a\uf077", "a\uf077"},
		{"next run", ``, "a", "a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `<w:p><w:r><w:rPr><w:rFonts w:ascii="Symbol"/></w:rPr><w:t>p</w:t></w:r><w:r><w:rPr>` + c.rPr + `</w:rPr><w:t xml:space="preserve">` + c.text + `</w:t></w:r></w:p>`
			doc, err := extract.Bytes(context.Background(), "symbols.docx", wordBody(body), nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := "π" + c.want; len(doc.Sections) != 1 || doc.Sections[0].Text != want {
				t.Errorf("got %+v, want %q", doc.Sections, want)
			}
		})
	}
}

// TestDOCXNoteOrder: footnotes read in the order the text cites them, as Word numbers them
// and pandoc lists them, not in footnotes.xml's order (a note written first may be cited
// last); a note cited nowhere comes after; a note's table and a heading-styled paragraph in
// it stay the note's text.
func TestDOCXNoteOrder(t *testing.T) {
	ref := func(id string) string { return `<w:r><w:footnoteReference w:id="` + id + `"/></w:r>` }
	body := `<w:p><w:r><w:t>Cites the later note first.</w:t></w:r>` + ref("2") + `</w:p>` +
		`<w:p><w:r><w:t>Then the earlier.</w:t></w:r>` + ref("1") + ref("2") + `</w:p>`
	note := func(id, inner string) string { return `<w:footnote w:id="` + id + `">` + inner + `</w:footnote>` }
	p := func(text string) string { return `<w:p><w:r><w:t>` + text + `</w:t></w:r></w:p>` }
	footnotes := `<w:footnotes ` + wordNS + `>` + `<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>` +
		note("1", p("Written first.")+`<w:tbl><w:tr><w:tc>`+p("cell")+`</w:tc><w:tc>`+p("two")+`</w:tc></w:tr></w:tbl>`) +
		note("2", `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Written second.</w:t></w:r></w:p>`) +
		note("3", p("Cited nowhere.")) + `</w:footnotes>`
	data := testdocs.Zip(
		testdocs.File{Name: "word/document.xml", Body: `<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`},
		testdocs.File{Name: "word/footnotes.xml", Body: footnotes},
	)
	doc, err := extract.Bytes(context.Background(), "notes.docx", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "docx", []extract.Section{
		{Text: "Cites the later note first.\n\nThen the earlier."},
		{Heading: "Footnotes", Text: "Written second.\n\nWritten first.\n\ncell\ttwo\n\nCited nowhere."},
	})
}

// TestDOCXDamagedStyles: a styles.xml that is not XML, or nests too deep, costs only the
// heading levels it names (Heading1 by its id still reads as a heading), and damaged
// footnotes only the notes; the text is read.
func TestDOCXDamagedStyles(t *testing.T) {
	body := `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Title</w:t></w:r></w:p><w:p><w:pPr><w:pStyle w:val="Kop2"/></w:pPr><w:r><w:t>Kept text.</w:t></w:r></w:p>`
	for name, styles := range map[string]string{
		"syntax": `<w:styles ` + wordNS + `><w:style w:type="paragraph" w:styleId="Kop2"><w:name w:val="heading 2"/></w:style><w:style w:styleId="<"`,
		"depth":  strings.Repeat("<a>", 200) + strings.Repeat("</a>", 200),
	} {
		data := testdocs.Zip(
			testdocs.File{Name: "word/document.xml", Body: `<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`},
			testdocs.File{Name: "word/styles.xml", Body: styles},
		)
		doc, err := extract.Bytes(context.Background(), "damaged.docx", data, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkSections(t, doc, "docx", []extract.Section{{Heading: "Title", Text: "Kept text."}})
	}
	for _, c := range []struct {
		footnotes string
		want      []extract.Section
	}{
		{ // not XML: the footnotes are left out
			`<w:footnotes ` + wordNS + `><w:footnote w:id="1"><w:p><w:r><w:t>Lost note.</w:t></w:r></w:p></w:footnote><w:footnote w:id="<"`,
			[]extract.Section{{Heading: "Title", Text: "Kept text."}, {Heading: "Endnotes", Text: "An endnote."}},
		},
		{ // cut short: what it holds is read, and the endnotes do not fall into its open table
			`<w:footnotes ` + wordNS + `><w:footnote w:id="1"><w:p><w:r><w:t>Half a note.</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell`,
			[]extract.Section{{Heading: "Title", Text: "Kept text."}, {Heading: "Footnotes", Text: "Half a note.\n\ncell"}, {Heading: "Endnotes", Text: "An endnote."}},
		},
	} {
		data := testdocs.Zip(
			testdocs.File{Name: "word/document.xml", Body: `<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`},
			testdocs.File{Name: "word/footnotes.xml", Body: c.footnotes},
			testdocs.File{Name: "word/endnotes.xml", Body: `<w:endnotes ` + wordNS + `><w:endnote w:id="1"><w:p><w:r><w:t>An endnote.</w:t></w:r></w:p></w:endnote></w:endnotes>`},
		)
		doc, err := extract.Bytes(context.Background(), "damaged.docx", data, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkSections(t, doc, "docx", c.want)
	}
}

// checkRTF checks that the RTF document rtf reads as one section of text want.
func checkRTF(t *testing.T, rtf, want string) {
	t.Helper()
	doc, err := extract.Bytes(context.Background(), "a.rtf", []byte(rtf), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "rtf", []extract.Section{{Text: want}})
}

func checkSections(t *testing.T, doc *extract.Document, format string, want []extract.Section) {
	t.Helper()
	if doc.Format != format {
		t.Errorf("format %q, want %q", doc.Format, format)
	}
	if len(doc.Sections) != len(want) {
		for _, s := range doc.Sections {
			t.Logf("%q: %q", s.Heading, s.Text)
		}
		t.Fatalf("%d sections, want %d", len(doc.Sections), len(want))
	}
	for i, s := range doc.Sections {
		if s != want[i] {
			t.Errorf("section %d:\n got %q: %q\nwant %q: %q", i, s.Heading, s.Text, want[i].Heading, want[i].Text)
		}
	}
}

const odfNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"`

func odf(mimetype, body string) []byte {
	return testdocs.Zip(
		testdocs.File{Name: "mimetype", Body: mimetype},
		testdocs.File{Name: "META-INF/manifest.xml", Body: `<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"/>`},
		testdocs.File{Name: "styles.xml", Body: `<?xml version="1.0"?><office:document-styles ` + odfNS + `><office:master-styles><text:p>PAGE HEADER</text:p></office:master-styles></office:document-styles>`},
		testdocs.File{Name: "content.xml", Body: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfNS + `><office:automatic-styles><text:p>STYLE</text:p></office:automatic-styles><office:body>` + body + `</office:body></office:document-content>`},
	)
}

// TestODFStylesOnly: an OpenDocument template of styles only (no content.xml: LibreOffice's
// Default.ott, Modern.ott, Simple.ott) has no text to read; it was called damaged.
func TestODFStylesOnly(t *testing.T) {
	data := testdocs.Zip(
		testdocs.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.text-template"},
		testdocs.File{Name: "META-INF/manifest.xml", Body: `<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"/>`},
		testdocs.File{Name: "styles.xml", Body: `<?xml version="1.0"?><office:document-styles ` + odfNS + `/>`},
	)
	_, err := extract.Bytes(context.Background(), "Default.ott", data, nil)
	var u *extract.Unreadable
	if !errors.As(err, &u) || !errors.Is(err, extract.ErrNoText) || errors.Is(err, extract.ErrCorrupt) || strings.Contains(err.Error(), "scan") || !strings.Contains(err.Error(), "only styles") {
		t.Errorf("got %v, want no text: styles only", err)
	}
}

// TestODF reads LibreOffice's text, spreadsheet and presentation documents; text inside
// sections is read (pandoc 2.17 skips it).
func TestODF(t *testing.T) {
	text := `<office:text><text:sequence-decls><text:sequence-decl text:name="Figure"/></text:sequence-decls>
<text:h text:outline-level="1">Field   guide</text:h>
<text:p>Birds  of the <text:span>coast</text:span>,<text:s text:c="2"/>in
   spring.<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Counted in 2024.</text:p></text:note-body></text:note></text:p>
<text:p><office:annotation><dc:creator>Ed</dc:creator><text:p>REVIEWER COMMENT</text:p></office:annotation>Gulls<text:tab/>terns<text:line-break/>waders</text:p>
<text:p><draw:frame><svg:title>DRAWING TITLE</svg:title><draw:text-box><text:p>Figure <text:sequence text:name="Figure">1</text:sequence>: a gull in flight</text:p></draw:text-box></draw:frame></text:p>
<text:tracked-changes><text:changed-region><text:deletion><text:p>DELETED TEXT</text:p></text:deletion></text:changed-region></text:tracked-changes>
<text:h text:outline-level="7">Seventh</text:h>
<text:h text:outline-level="2">Counts</text:h>
<table:table table:name="Table1"><table:table-row><table:table-cell><text:p>Bird</text:p></table:table-cell><table:table-cell><text:p>Count</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell><text:p>Gull</text:p><text:p>(adult)</text:p></table:table-cell><table:table-cell table:number-columns-repeated="3"><text:p>12</text:p></table:table-cell></table:table-row></table:table>
<text:section text:name="modules"><text:list><text:list-item><text:p>First item</text:p></text:list-item></text:list></text:section>
</office:text>`
	doc, err := extract.Bytes(context.Background(), "guide.odt", odf("application/vnd.oasis.opendocument.text", text), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "odf", []extract.Section{
		{Heading: "Field guide", Text: "Birds of the coast,  in spring.\n\nGulls\tterns\nwaders\n\nFigure 1: a gull in flight"},
		{Heading: "Field guide", Text: "Seventh"}, // a heading without text, replaced by one above it
		{Heading: "Field guide › Counts", Text: "Bird\tCount\nGull (adult)\t12\t12\t12\n\nFirst item"},
		{Heading: "Footnotes", Text: "Counted in 2024."},
	})

	sheet := `<office:spreadsheet><table:table table:name="Budget"><table:table-row><table:table-cell><text:p>Rent</text:p></table:table-cell><table:table-cell office:value="900"><text:p>900</text:p></table:table-cell></table:table-row><table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>
<table:table table:name="Notes"><table:table-row><table:table-cell><text:p>Paid monthly</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet>`
	doc, err = extract.Bytes(context.Background(), "budget.ods", odf("application/vnd.oasis.opendocument.spreadsheet", sheet), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "odf", []extract.Section{
		{Heading: "Budget", Text: "Rent\t900"},
		{Heading: "Notes", Text: "Paid monthly"},
	})

	// Repeated cells and rows with text stand as often as LibreOffice shows them, up to
	// 1,000 times; empty ones, however many, are dropped (ODF Toolkit's OOStyledTable,
	// odfpy's spreadsheet-with-macro).
	repeated := `<office:spreadsheet><table:table table:name="Rep"><table:table-row><table:table-cell><text:p>a</text:p></table:table-cell><table:table-cell table:number-columns-repeated="1020"/><table:table-cell><text:p>b</text:p></table:table-cell><table:table-cell table:number-columns-repeated="2"><text:p>0</text:p></table:table-cell><table:table-cell table:number-columns-repeated="16384"/></table:table-row>` +
		`<table:table-row table:number-rows-repeated="2"><table:table-cell><text:p>same</text:p></table:table-cell></table:table-row>` +
		`<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>` +
		`<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="16384"><text:p>x</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet>`
	doc, err = extract.Bytes(context.Background(), "repeated.ods", odf("application/vnd.oasis.opendocument.spreadsheet", repeated), nil)
	if err != nil {
		t.Fatal(err)
	}
	many := strings.Repeat(strings.TrimSuffix(strings.Repeat("x\t", 1000), "\t")+"\n", 1000)
	checkSections(t, doc, "odf", []extract.Section{
		{Heading: "Rep", Text: "a\tb\t0\t0\nsame\nsame\n" + strings.TrimSuffix(many, "\n")},
	})

	// A row stops at the widest sheet Calc shows, 16,384 cells, however its cells repeat:
	// 100 cells each repeated 1,000 times are not 100,000.
	wide := `<office:spreadsheet><table:table table:name="Wide"><table:table-row>` +
		strings.Repeat(`<table:table-cell table:number-columns-repeated="1000"><text:p>w</text:p></table:table-cell>`, 100) +
		`</table:table-row></table:table></office:spreadsheet>`
	doc, err = extract.Bytes(context.Background(), "wide.ods", odf("application/vnd.oasis.opendocument.spreadsheet", wide), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Sections) != 1 || strings.Count(doc.Sections[0].Text, "w") != 16384 {
		t.Errorf("a row of 100 cells repeated 1,000 times each: want 16,384 cells, got %d", strings.Count(doc.Sections[0].Text, "w"))
	}

	slides := `<office:presentation><draw:page draw:name="Welcome"><draw:frame><draw:text-box><text:p>Hello, team</text:p></draw:text-box></draw:frame></draw:page><draw:page draw:name="Plan"><draw:frame><draw:text-box><text:list><text:list-item><text:p>Ship it</text:p></text:list-item></text:list></draw:text-box></draw:frame></draw:page></office:presentation>`
	// Sniffed by its mimetype, without an extension.
	doc, err = extract.Bytes(context.Background(), "slides", odf("application/vnd.oasis.opendocument.presentation", slides), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "odf", []extract.Section{{Heading: "Welcome", Text: "Hello, team"}, {Heading: "Plan", Text: "Ship it"}})

	// Saved with a password: the manifest says content.xml is encrypted.
	locked := testdocs.Zip(
		testdocs.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.text"},
		testdocs.File{Name: "META-INF/manifest.xml", Body: `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml" manifest:size="3000"><manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k"><manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc"/></manifest:encryption-data></manifest:file-entry></manifest:manifest>`},
		testdocs.File{Name: "content.xml", Body: "\x93\x11 encrypted"})
	_, err = extract.Bytes(context.Background(), "locked.odt", locked, nil)
	checkUnreadable(t, err, "locked.odt", extract.ErrEncrypted, "protected by a password")
}

func epub(files ...testdocs.File) []byte {
	return testdocs.Zip(append([]testdocs.File{
		{Name: "mimetype", Body: "application/epub+zip"},
		{Name: "META-INF/container.xml", Body: `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
	}, files...)...)
}

// TestEPUB reads the chapters in the spine's order, not the manifest's or the archive's,
// each once (live-manual's EPUBs list places inside chapters as items of their own).
func TestEPUB(t *testing.T) {
	opf := `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/><manifest>
<item id="c1" href="Text/one.xhtml" media-type="application/xhtml+xml"/>
<item id="c2" href="Text/two%20words.xhtml" media-type="application/xhtml+xml"/>
<item id="css" href="style.css" media-type="text/css"/>
<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
<item id="de" href="de/one.xhtml" media-type="application/xhtml+xml"/>
<item id="c1#o8" href="Text/one.xhtml#o8" media-type="application/xhtml+xml"/>
</manifest><spine><itemref idref="c2"/><itemref idref="c1"/><itemref idref="css"/><itemref idref="missing"/><itemref idref="c2"/><itemref idref="de" linear="no"/><itemref idref="c1#o8"/></spine></package>`
	page := func(h, p string) string {
		return `<?xml version="1.0" encoding="utf-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>T</title></head><body><h1>` + h + `</h1><p>` + p + `</p></body></html>`
	}
	data := epub(
		testdocs.File{Name: "OEBPS/content.opf", Body: opf},
		testdocs.File{Name: "OEBPS/Text/one.xhtml", Body: page("Chapter two", "Second in the archive, read second.")},
		testdocs.File{Name: "OEBPS/Text/two words.xhtml", Body: page("Chapter one", "Read first.")},
		testdocs.File{Name: "OEBPS/style.css", Body: "p { color: red }"},
		testdocs.File{Name: "OEBPS/nav.xhtml", Body: page("Contents", "NAVIGATION")},
		testdocs.File{Name: "OEBPS/de/one.xhtml", Body: page("Kapitel zwei", "NICHT LINEAR")},
	)
	doc, err := extract.Bytes(context.Background(), "book.epub", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "epub", []extract.Section{
		{Heading: "Chapter one", Text: "Read first."},
		{Heading: "Chapter two", Text: "Second in the archive, read second."},
	})
	if _, err := extract.Bytes(context.Background(), "bad.epub", epub(), nil); err == nil || !strings.Contains(err.Error(), "container.xml does not name") {
		t.Errorf("an EPUB without its package document: %v", err)
	}
	// a book zipped with the folder it was built in (Debian Edu's manuals: every part
	// under "epub/") reads from that folder; with two such folders it is not guessed
	container := `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`
	folder := []testdocs.File{
		{Name: "epub/mimetype", Body: "application/epub+zip"},
		{Name: "epub/META-INF/container.xml", Body: container},
		{Name: "epub/OEBPS/content.opf", Body: opf},
		{Name: "epub/OEBPS/Text/one.xhtml", Body: page("Chapter two", "Second in the archive, read second.")},
		{Name: "epub/OEBPS/Text/two words.xhtml", Body: page("Chapter one", "Read first.")},
	}
	doc, err = extract.Bytes(context.Background(), "folder.epub", testdocs.Zip(folder...), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "epub", []extract.Section{
		{Heading: "Chapter one", Text: "Read first."},
		{Heading: "Chapter two", Text: "Second in the archive, read second."},
	})
	two := append(folder, testdocs.File{Name: "other/META-INF/container.xml", Body: container})
	if _, err := extract.Bytes(context.Background(), "two.epub", testdocs.Zip(two...), nil); err == nil || !strings.Contains(err.Error(), "container.xml does not name") {
		t.Errorf("an EPUB with two books in folders: %v", err)
	}
	// a fixed-layout book's blank page and picture page read as nothing and their alt
	// text, not as the title every page repeats (IDPF's page-blanche.epub)
	fixed := `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/><manifest>
<item id="p0" href="p0.xhtml" media-type="application/xhtml+xml"/><item id="p1" href="p1.xhtml" media-type="application/xhtml+xml"/>
</manifest><spine><itemref idref="p0"/><itemref idref="p1"/></spine></package>`
	fixedPage := func(body string) string {
		return `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>La Page Blanche</title></head><body><div class="page">` + body + `</div></body></html>`
	}
	doc, err = extract.Bytes(context.Background(), "fixed.epub", epub(
		testdocs.File{Name: "OEBPS/content.opf", Body: fixed},
		testdocs.File{Name: "OEBPS/p0.xhtml", Body: fixedPage("")},
		testdocs.File{Name: "OEBPS/p1.xhtml", Body: fixedPage(`<img src="p1.jpg" alt="page 1"/>`)},
	), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "epub", []extract.Section{{Text: "[page 1]"}})
	drm := epub(
		testdocs.File{Name: "META-INF/encryption.xml", Body: `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData><enc:CipherReference URI="OEBPS/Text/one.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>`},
		testdocs.File{Name: "OEBPS/content.opf", Body: opf},
		testdocs.File{Name: "OEBPS/Text/one.xhtml", Body: "\x8f\x02 encrypted bytes"},
		testdocs.File{Name: "OEBPS/Text/two words.xhtml", Body: page("Chapter one", "Read first.")},
	)
	_, err = extract.Bytes(context.Background(), "drm.epub", drm, nil)
	checkUnreadable(t, err, "drm.epub", extract.ErrEncrypted, "protected by DRM: its chapters are encrypted — export the text")
}

// FuzzOfficeXML puts arbitrary XML into one part of a well-formed archive: a DOCX's
// document, styles or footnotes, an ODF's content, an EPUB's package document or
// chapter. Each must be read or refused with an *Unreadable, never panic.
func FuzzOfficeXML(f *testing.F) {
	docx := func(part, xml string) []byte {
		files := map[string]string{
			"word/document.xml":  `<w:document ` + wordNS + `><w:body><w:p><w:r><w:t>x</w:t></w:r></w:p></w:body></w:document>`,
			"word/styles.xml":    `<w:styles ` + wordNS + `/>`,
			"word/footnotes.xml": `<w:footnotes ` + wordNS + `/>`,
			"word/numbering.xml": `<w:numbering ` + wordNS + `/>`,
		}
		files[part] = xml
		var zf []testdocs.File
		for _, n := range []string{"word/document.xml", "word/styles.xml", "word/footnotes.xml", "word/numbering.xml"} {
			zf = append(zf, testdocs.File{Name: n, Body: files[n]})
		}
		return testdocs.Zip(zf...)
	}
	opf := `<package><manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>`
	build := func(kind uint8, xml string) (string, []byte) {
		switch kind % 8 {
		case 0:
			return "a.docx", docx("word/document.xml", xml)
		case 1:
			return "a.docx", docx("word/styles.xml", xml)
		case 2:
			return "a.docx", docx("word/footnotes.xml", xml)
		case 3:
			return "a.odt", odf("application/vnd.oasis.opendocument.text", xml)
		case 4:
			return "a.epub", epub(testdocs.File{Name: "OEBPS/content.opf", Body: xml}, testdocs.File{Name: "OEBPS/c.xhtml", Body: "<p>x</p>"})
		case 6:
			return "a.docx", docx("word/numbering.xml", xml)
		case 7: // an alt-chunk's MHT web archive
			return "a.docx", testdocs.Zip(
				testdocs.File{Name: "word/document.xml", Body: `<w:document ` + wordNS + `><w:body><w:altChunk r:id="c"/></w:body></w:document>`},
				testdocs.File{Name: "word/_rels/document.xml.rels", Body: `<Relationships><Relationship Id="c" Target="c.mht"/></Relationships>`},
				testdocs.File{Name: "word/c.mht", Body: xml})
		}
		return "a.epub", epub(testdocs.File{Name: "OEBPS/content.opf", Body: opf}, testdocs.File{Name: "OEBPS/c.xhtml", Body: xml})
	}
	f.Add(uint8(4), utf16Part(opf, true)) // an XML part in UTF-16 (xmlcharset_test.go)
	f.Add(uint8(0), `<w:document `+wordNS+`><w:body><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>H</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:p><w:r><w:t>c</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:body></w:document>`)
	f.Add(uint8(0), `<w:document `+wordNS+`><w:body><w:p><w:r><w:sym w:font="Symbol" w:char="F061"/><w:drawing><wp:docPr descr="alt"/></w:drawing></w:r></w:p></w:body></w:document>`)
	f.Add(uint8(0), `<w:document `+wordNS+`><w:body><w:p><m:oMath><m:d><m:dPr><m:begChr/><m:sepChr m:val="‖"/></m:dPr><m:e><m:nary><m:naryPr><m:chr m:val="∑"/></m:naryPr><m:e><m:d/></m:e></m:nary></m:e><m:e><m:r><m:t>x</m:t></m:r></m:e></m:d></m:oMath><m:d><m:dPr></w:p></w:body></w:document>`)
	f.Add(uint8(0), `<w:document `+wordNS+`><w:body><w:p><m:oMath><m:f><m:num><m:sSup><m:e><m:r><m:t>x</m:t></m:r></m:e><m:sup><m:rad><m:deg/><m:e><m:r><m:t>2</m:t></m:r></m:e></m:rad></m:sup></m:sSup></m:num><m:den></w:p><w:p><m:r><m:t>y</m:t></m:r></m:den></m:f><m:func><m:fName/><m:e/></m:func></m:oMath></w:p></w:body></w:document>`)
	f.Add(uint8(1), `<w:styles><w:style w:type="paragraph" w:styleId="A"><w:basedOn w:val="B"/></w:style><w:style w:type="paragraph" w:styleId="B"><w:basedOn w:val="A"/><w:pPr><w:outlineLvl w:val="3"/></w:pPr></w:style></w:styles>`)
	f.Add(uint8(2), `<w:footnotes><w:footnote w:type="separator"><w:p/></w:footnote><w:footnote w:id="1"><w:p><w:r><w:t>n</w:t></w:r></w:p></w:footnote></w:footnotes>`)
	f.Add(uint8(3), `<office:document-content><office:body><office:text><text:h text:outline-level="2">H</text:h><text:p>a<text:s text:c="3"/>b<text:note><text:note-body><text:p>n</text:p></text:note-body></text:note></text:p></office:text></office:body></office:document-content>`)
	f.Add(uint8(3), `<office:document-content><office:automatic-styles><text:list-style style:name="L"><text:list-level-style-number text:level="2" text:display-levels="9" style:num-format="a" text:start-value="-2"/></text:list-style></office:automatic-styles><office:body><office:text><text:list text:style-name="L" text:continue-list="x"><text:list-item text:start-value="99999"><text:list><text:list-header><text:p>a</text:p></text:list-header><text:list-item><text:h>b</text:h></text:list-item></text:list></text:list-item></text:list></office:text></office:body></office:document-content>`)
	f.Add(uint8(3), `<office:text><text:p>a<draw:frame><draw:object xlink:href="./Object 1"><math:math><math:semantics><math:mi>x</math:mi><math:mtext> t </math:mtext><math:annotation>x</math:annotation></math:semantics></math:math></draw:object></draw:frame>.</text:p></office:text>`)
	f.Add(uint8(3), `<office:document-content><office:automatic-styles><text:outline-style><text:outline-level-style text:level="10" text:display-levels="99" style:num-format="I" text:start-value="-1"/></text:outline-style><style:style style:name="P" style:family="paragraph" style:parent-style-name="P"/></office:automatic-styles><office:body><office:text><text:h text:outline-level="12" text:restart-numbering="true" text:start-value="4000" text:style-name="P"><text:number>1</text:number>H</text:h></office:text></office:body></office:document-content>`)
	f.Add(uint8(3), `<office:document-content><office:body><office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell><office:annotation office:display="true"><dc:creator>A</dc:creator><text:p>n<office:annotation office:display="true"><text:p>m</text:p></office:annotation></text:p><table:table><table:table-row><table:table-cell><text:p>c</text:p></table:table-cell></table:table-row></table:table></office:annotation><text:p>v</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet><office:presentation><draw:page draw:name="page1"/><draw:page draw:name="page1"/><office:drawing><draw:page draw:name="page3"/></office:drawing></office:presentation></office:body></office:document-content>`)
	f.Add(uint8(4), opf)
	f.Add(uint8(6), `<w:numbering><w:abstractNum w:abstractNumId="0"><w:numStyleLink w:val="S"/><w:lvl w:ilvl="0"><w:start w:val="-3"/><w:numFmt w:val="upperRoman"/><w:lvlText w:val="%1.%9%"/><w:lvlRestart w:val="0"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="99999"/></w:lvlOverride></w:num></w:numbering>`)
	f.Add(uint8(5), `<html><body><h1>T</h1><p>text</p></body></html>`)
	f.Add(uint8(5), `<p><svg><text y="1"><tspan y="2">a-</tspan><tspan dy="1em">b</tspan></text><foreignObject><p>c</p></foreignObject><svg/></svg><math display="block"><mi>x</mi><mtext>if</mtext><annotation>x</annotation></math><object><p>d</p></object><epub:switch><epub:case required-namespace="http://www.w3.org/2000/svg"><epub:case>e</epub:case></epub:case><epub:default>f</epub:default></epub:switch></p>`)
	f.Add(uint8(7), "Content-Type: multipart/related; boundary=\"B\"\r\n\r\n--B\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<p>caf=E9</p>\r\n--B--\r\n")
	f.Fuzz(func(t *testing.T, kind uint8, xml string) {
		name, data := build(kind, xml)
		checkReadOrRefused(t, name, data)
	})
}

// wordRTF is RTF as Word writes it: tables of fonts, colours and styles, document
// information, a field, a picture, a header, Unicode with fallbacks, code page bytes.
const wordRTF = `{\rtf1\adeflang1025\ansi\ansicpg1252\uc1\deff0{\fonttbl{\f0\froman\fcharset0 Times New Roman;}{\f1\fswiss Arial;}}
{\colortbl;\red0\green0\blue0;}
{\stylesheet{\ql \li0\ri0\widctlpar\f0\fs24 \snext0 Normal;}{\s1\ql\outlinelevel0\b\fs32 \sbasedon0 \snext0 heading 1;}{\s2\ql\b\fs28 \sbasedon0 \snext0 heading 2;}{\*\cs10 \additive Default Paragraph Font;}}
{\info{\title SECRET TITLE}{\author Someone}}
{\header \pard\plain PAGE HEADER\par}
\pard\plain \s1\outlinelevel0 Caf\'e9 report\par
\pard\plain Prices rose by 5\u8239\'3f% in Z\u252\'fcrich {\field{\*\fldinst HYPERLINK "http://x"}{\fldrslt the city}}.\par
{\*\shppict{\pict\pngblip 89504e470d0a}}{\nonshppict{\pict\wmetafile8 0100}}
\pard\plain \s2 Costs\par
\pard\intbl Rent\cell 900\cell\row
\pard\intbl Food\cell 300\cell\row
\pard The end\emdash really.{\footnote\pard Note text.}\par
}`

func TestRTF(t *testing.T) {
	doc, err := extract.Bytes(context.Background(), "report.rtf", []byte(wordRTF), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "rtf", []extract.Section{
		{Heading: "Café report", Text: "Prices rose by 5\u202f% in Zürich the city."},
		{Heading: "Café report › Costs", Text: "Rent\t900\nFood\t300\nThe end—really."},
		{Heading: "Footnotes", Text: "Note text."},
	})
	if _, err := extract.Bytes(context.Background(), "deep.rtf", []byte(`{\rtf1 `+strings.Repeat("{", 10_001)), nil); err == nil || !strings.Contains(err.Error(), "nest too deep") {
		t.Errorf("deep groups: %v", err)
	}
}

// TestRTFUnicodeFallback: the characters skipped after a \uN (its fallback for readers
// without Unicode) end with the group: a list bullet's {\listtext\tab \u8226 \tab} took the
// first letter of the item after it (pandoc's list_multiparagraph.rtf: "irst item").
func TestRTFUnicodeFallback(t *testing.T) {
	for _, c := range []struct{ name, rtf, want string }{
		{"bullet group", `{\rtf1\ansi\uc1 \pard{\listtext\tab \u8226 \tab}First item.\par}`, "• First item."},
		{"fallback skipped", `{\rtf1\ansi\uc1 \pard Here\u8217's it.\par}`, "Here’s it."},
		{"two fallback bytes", `{\rtf1\ansi\uc2 \pard a\u8212\'97\'97b.\par}`, "a—b."},
		{"fallback cut by a group", `{\rtf1\ansi\uc2 \pard{x\u8212-}y.\par}`, "x—y."},
	} {
		t.Run(c.name, func(t *testing.T) { checkRTF(t, c.rtf, c.want) })
	}
}

// TestRTFHidden: hidden text (\v) is neither shown nor printed, and pandoc leaves it out
// (pandoc's formatting.rtf: "This is hidden: secret." read the secret).
func TestRTFHidden(t *testing.T) {
	for _, c := range []struct{ name, rtf, want string }{
		{"group", `{\rtf1\ansi \pard This is hidden: {\v secret}.\par}`, "This is hidden: ."},
		{"switched off", `{\rtf1\ansi \pard a\v b\v0 c {\v d\plain e} f\par}`, "ac e f"},
		{"code page and unicode", `{\rtf1\ansi \pard x{\v \'e9\u8212-}y\par}`, "xy"},
	} {
		t.Run(c.name, func(t *testing.T) { checkRTF(t, c.rtf, c.want) })
	}
}

// TestRTFNotes: footnotes and endnotes go after the text, as a DOCX's, and the paragraph a
// note stands in reads on (pandoc's footnote.rtf read "annotated.See Sahlins").
func TestRTFNotes(t *testing.T) {
	const mead = `{\rtf1\ansi \ftnbj\ftnrestart \pard\plain {\pu6 Mead's study has been annotated.\chftn
{\footnote \pard\plain \s246 \fs20 {\up6\chftn }
See Sahlins.\par And Geertz.} It was her \'e9tude.\chftn{\footnote\ftnalt \pard{\up6\chftn} An endnote.} Then.}\par Next paragraph.\par}`
	doc, err := extract.Bytes(context.Background(), "a.rtf", []byte(mead), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "rtf", []extract.Section{
		{Text: "Mead's study has been annotated. It was her étude. Then.\n\nNext paragraph."},
		{Heading: "Footnotes", Text: "See Sahlins.\n\nAnd Geertz."},
		{Heading: "Endnotes", Text: "An endnote."},
	})
}
