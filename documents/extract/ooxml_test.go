package extract_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

const (
	relNS       = `http://schemas.openxmlformats.org/officeDocument/2006/relationships`
	sheetType   = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
	presentType = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"
)

// ooxmlPackage packs an Office Open XML package: its content types (the main part's
// given), the package relationship to main, and the parts.
func ooxmlPackage(main, contentType string, parts ...testdocs.File) []byte {
	files := []testdocs.File{
		{Name: "[Content_Types].xml", Body: `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/` + main + `" ContentType="` + contentType + `"/></Types>`},
		{Name: "_rels/.rels", Body: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="` + relNS + `/officeDocument" Target="` + main + `"/></Relationships>`},
	}
	return testdocs.Zip(append(files, parts...)...)
}

// rels writes a relationships part: pairs of id and "type target".
func rels(pairs ...string) string {
	s := `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`
	for i := 0; i+1 < len(pairs); i += 2 {
		typ, target, _ := strings.Cut(pairs[i+1], " ")
		s += `<Relationship Id="` + pairs[i] + `" Type="` + relNS + `/` + typ + `" Target="` + target + `"/>`
	}
	return s + `</Relationships>`
}

const ssNS = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="` + relNS + `"`

// workbook is an XLSX whose workbook lists its sheets (name, state, part) in an order
// other than their parts' names, with the given date system, shared strings and styles.
func workbook(date1904 bool, sharedStrings, styles string, sheets ...[3]string) []byte {
	pr := ""
	if date1904 {
		pr = `<workbookPr date1904="1"/>`
	}
	wb := `<workbook ` + ssNS + `>` + pr + `<sheets>`
	relPairs := []string{"rS", "sharedStrings sharedStrings.xml", "rT", "styles styles.xml"}
	var parts []testdocs.File
	for i, s := range sheets {
		id := "rId" + string(rune('1'+i))
		state := ""
		if s[1] != "" {
			state = ` state="` + s[1] + `"`
		}
		wb += `<sheet name="` + s[0] + `" sheetId="` + string(rune('1'+i)) + `"` + state + ` r:id="` + id + `"/>`
		typ := "worksheet"
		if strings.Contains(s[2], "<chartsheet") {
			typ = "chartsheet"
		}
		name := "worksheets/sheet" + string(rune('9'-i)) + ".xml"
		relPairs = append(relPairs, id, typ+" "+name)
		parts = append(parts, testdocs.File{Name: "xl/" + name, Body: s[2]})
	}
	wb += `</sheets></workbook>`
	parts = append(parts,
		testdocs.File{Name: "xl/workbook.xml", Body: wb},
		testdocs.File{Name: "xl/_rels/workbook.xml.rels", Body: rels(relPairs...)},
		testdocs.File{Name: "xl/sharedStrings.xml", Body: `<sst ` + ssNS + `>` + sharedStrings + `</sst>`},
		testdocs.File{Name: "xl/styles.xml", Body: `<styleSheet ` + ssNS + `>` + styles + `</styleSheet>`},
	)
	return ooxmlPackage("xl/workbook.xml", sheetType, parts...)
}

func sheet(rows string) string {
	return `<worksheet ` + ssNS + `><sheetData>` + rows + `</sheetData></worksheet>`
}

// TestXLSX: sheets in the workbook's order (hidden ones read, chart sheets not), each a
// section; cells of every type; dates by built-in and custom formats in both date systems.
func TestXLSX(t *testing.T) {
	shared := `<si><t>Item</t></si><si><r><t>Rich </t></r><r><rPr><b/></rPr><t>text</t></r></si>` +
		`<si><t>東京</t><rPh sb="0" eb="2"><t>トウキョウ</t></rPh></si><si><t>line_x000D_break_x005F_x</t></si>`
	// styles: 0 general, 1 built-in date (14), 2 custom date and time, 3 built-in time (20),
	// 4 a custom number format with letters in quotes and brackets (no date), 5 elapsed time,
	// 6 built-in #,##0.00, 7 a custom fixed-point format with a currency, 8 built-in 0.00%
	// (numbers as Excel shows them: thousands separators, currency, percent; numfmt_test.go)
	styles := `<numFmts count="3"><numFmt numFmtId="164" formatCode="dd\.mm\.yyyy\ hh:mm"/><numFmt numFmtId="165" formatCode="[Red]#,##0&quot; days&quot;;[Blue]\-0"/><numFmt numFmtId="166" formatCode="[h]:mm"/><numFmt numFmtId="167" formatCode="[$€-407]\ #,##0.0000;[Red]\-0"/></numFmts>` +
		`<cellStyleXfs><xf numFmtId="14"/></cellStyleXfs>` +
		`<cellXfs><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="20"/><xf numFmtId="165"/><xf numFmtId="166"/><xf numFmtId="4"/><xf numFmtId="167"/><xf numFmtId="10"/></cellXfs>`
	data := sheet(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c></row>` +
		`<row r="2" s="1" customFormat="1"/><row r="3"><c r="A3" s="1"/><c r="B3" s="2"/></row>` +
		`<row r="4"><c r="A4"><v>3.14159265358979</v></c><c><v>19.989999999999998</v></c><c s="6"><v>19.989999999999998</v></c><c s="7"><v>245764.86650000303</v></c><c s="6"><v>-0.001</v></c><c s="8"><v>0.1234</v></c><c><v>1.5E-3</v></c><c><v>1700.0</v></c><c s="0"><v>-2.50</v></c><c><v>1E+300</v></c><c r="B4" t="b"><v>1</v></c><c r="C4" t="e"><v>#N/A</v></c><c r="D4" t="inlineStr"><is><r><t>in</t></r><r><t>line</t></r></is></c></row>` +
		`<row r="5"><c r="A5"><f>SUM(A4:A4)*2</f><v>6.28</v></c><c r="B5" t="str"><f>"a"&amp;"b"</f><v>ab</v></c><c r="C5" t="s"><v>3</v></c><c r="D5" t="s"><v>99</v></c></row>` +
		`<row r="6"><c r="A6" s="1"><v>45000</v></c><c r="B6" s="2"><v>45000.75</v></c><c r="C6" s="3"><v>0.5208333333333334</v></c><c r="D6" s="4"><v>12</v></c><c r="E6" s="5"><v>1.5</v></c><c r="F6" s="1"><v>60</v></c><c r="G6" t="d"><v>2024-02-29</v></c></row>`)
	hidden := sheet(`<row r="1"><c r="A1" t="inlineStr"><is><t>secret but read</t></is></c></row>`)
	chart := `<chartsheet ` + ssNS + `><drawing r:id="x"/></chartsheet>`
	doc, err := extract.Bytes(context.Background(), "book.xlsx", workbook(false, shared, styles,
		[3]string{"Data", "", data}, [3]string{"Chart", "", chart}, [3]string{"Old", "hidden", hidden}), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "xlsx", []extract.Section{
		{Heading: "Data", Text: "Item\tRich text\t東京\n3.14159265358979\t19.99\t19.99\t€ 245,764.8665\t0.00\t12.34%\t0.0015\t1700\t-2.5\t1E+300\tTRUE\t#N/A\tinline\n6.28\tab\tline break_x\n2023-03-15\t2023-03-15 18:00\t12:30\t12 days\t36:00\t1900-02-29\t2024-02-29"},
		{Heading: "Old", Text: "secret but read"},
	})
	// the 1904 date system counts from 1904-01-01
	doc, err = extract.Bytes(context.Background(), "mac.xlsx", workbook(true, "", styles,
		[3]string{"Mac", "", sheet(`<row><c s="1"><v>43538</v></c><c s="2"><v>0</v></c></row>`)}), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "xlsx", []extract.Section{{Heading: "Mac", Text: "2023-03-15\t1904-01-01 00:00"}})
}

const pmlNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="` + relNS + `" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

// shape is a p:sp of the placeholder type ph ("" none) with paragraphs of runs.
func shape(ph string, paras ...string) string {
	s := `<p:sp><p:nvSpPr><p:cNvPr id="2" name="S"/><p:cNvSpPr/><p:nvPr>`
	if ph != "" {
		s += `<p:ph type="` + ph + `"/>`
	}
	s += `</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>`
	for _, p := range paras {
		s += `<a:p>` + p + `</a:p>`
	}
	return s + `</p:txBody></p:sp>`
}

func run(text string) string { return `<a:r><a:rPr lang="en-US"/><a:t>` + text + `</a:t></a:r>` }

// presentation is a PPTX whose slide list names its slides (parts' contents, in order) and
// their notes (the same index; "" none).
func presentation(slides, notes []string) []byte {
	pres := `<p:presentation ` + pmlNS + `><p:sldIdLst>`
	var pairs []string
	var parts []testdocs.File
	for i, s := range slides {
		n := string(rune('1' + i))
		part := "slides/slide" + string(rune('9'-i)) + ".xml"
		pres += `<p:sldId id="25` + n + `" r:id="rId` + n + `"/>`
		pairs = append(pairs, "rId"+n, "slide "+part)
		parts = append(parts, testdocs.File{Name: "ppt/" + part, Body: `<p:sld ` + pmlNS + s})
		if notes[i] != "" {
			np := "notesSlides/notesSlide" + n + ".xml"
			parts = append(parts,
				testdocs.File{Name: "ppt/slides/_rels/" + strings.TrimPrefix(part, "slides/") + ".rels", Body: rels("rN", "notesSlide ../"+np)},
				testdocs.File{Name: "ppt/" + np, Body: `<p:notes ` + pmlNS + `><p:cSld><p:spTree>` + shape("sldImg") + shape("body", notes[i]) + shape("sldNum", run("7")) + `</p:spTree></p:cSld></p:notes>`})
		}
	}
	pres += `</p:sldIdLst></p:presentation>`
	parts = append(parts,
		testdocs.File{Name: "ppt/presentation.xml", Body: pres},
		testdocs.File{Name: "ppt/_rels/presentation.xml.rels", Body: rels(pairs...)})
	return ooxmlPackage("ppt/presentation.xml", presentType, parts...)
}

// TestPPTX: slides in the slide list's order, each headed by its number and title, shapes'
// text in drawing order (groups, tables, breaks, fields), footers and fallbacks left out,
// hidden slides marked, notes after their slide, slides without text left out.
func TestPPTX(t *testing.T) {
	tree := func(shapes ...string) string {
		return `><p:cSld><p:spTree>` + strings.Join(shapes, "") + `</p:spTree></p:cSld></p:sld>`
	}
	table := `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="T"/><p:nvPr/></p:nvGraphicFramePr><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl>` +
		`<a:tr><a:tc><a:txBody><a:p>` + run("Year") + `</a:p></a:txBody></a:tc><a:tc><a:txBody><a:p>` + run("Sales") + `</a:p><a:p>` + run("(net)") + `</a:p></a:txBody></a:tc></a:tr>` +
		`<a:tr><a:tc><a:txBody><a:p>` + run("2025") + `</a:p></a:txBody></a:tc><a:tc hMerge="1"><a:txBody><a:p/></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
	group := `<p:grpSp><p:nvGrpSpPr><p:cNvPr id="5" name="G"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>` + shape("", run("Grouped one")) + shape("", run("Grouped two")) + `</p:grpSp>`
	fallback := `<mc:AlternateContent><mc:Choice Requires="a14">` + shape("", run("Chosen")) + `</mc:Choice><mc:Fallback>` + shape("", run("FALLBACK")) + `</mc:Fallback></mc:AlternateContent>`
	slides := []string{
		tree(shape("ctrTitle", run("Quarterly ")+run("review")), shape("subTitle", run("Spring"))),
		tree(shape("title", run("Results")), shape("body", run("First line")+`<a:br/>`+run("second line"), run("Page ")+`<a:fld id="{1}" type="slidenum"><a:t>2</a:t></a:fld>`), table, group, fallback, shape("sldNum", run("2")), shape("ftr", run("Company confidential"))),
		` show="0"` + tree(shape("title", run("Backup")), shape("", run("Spare numbers"))),
		tree(),
		tree(shape("", run("No title here"))),
	}
	notes := []string{"", run("Say hello first."), "", "", ""}
	doc, err := extract.Bytes(context.Background(), "deck.pptx", presentation(slides, notes), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "pptx", []extract.Section{
		{Heading: "Slide 1: Quarterly review", Text: "Spring"},
		{Heading: "Slide 2: Results", Text: "First line\nsecond line\nPage 2\n\nYear\tSales (net)\n2025\n\nGrouped one\n\nGrouped two\n\nChosen"},
		{Heading: "Slide 2: Results › Notes", Text: "Say hello first."},
		{Heading: "Slide 3 (hidden): Backup", Text: "Spare numbers"},
		{Heading: "Slide 5", Text: "No title here"},
	})
}

// TestOOXMLRefused: a binary workbook, or a package of the other kind, is refused by its
// content type whatever its name; a package without content types or with a damaged sheet
// or slide is damaged; an OLE file is encrypted. (Macro-enabled workbooks, templates and
// slide shows are read: TestOOXMLVariants.)
func TestOOXMLRefused(t *testing.T) {
	book := func(contentType, sheetXML string) []byte {
		return ooxmlPackage("xl/workbook.xml", contentType,
			testdocs.File{Name: "xl/workbook.xml", Body: `<workbook ` + ssNS + `><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`},
			testdocs.File{Name: "xl/_rels/workbook.xml.rels", Body: rels("rId1", "worksheet worksheets/sheet1.xml")},
			testdocs.File{Name: "xl/worksheets/sheet1.xml", Body: sheetXML})
	}
	ok := sheet(`<row><c t="inlineStr"><is><t>x</t></is></c></row>`)
	for _, c := range []struct {
		name string
		data []byte
		want error
		says string
	}{
		{"binary.xlsx", book("application/vnd.ms-excel.sheet.binary.macroEnabled.main", ok), extract.ErrUnsupported, "it is a binary workbook (.xlsb), not an Excel workbook (.xlsx)"},
		{"slides.xlsx", book(presentType, ok), extract.ErrUnsupported, "it is a PowerPoint presentation (.pptx), not an Excel workbook (.xlsx)"},
		{"notypes.xlsx", testdocs.Zip(testdocs.File{Name: "xl/workbook.xml", Body: `<workbook/>`}), extract.ErrCorrupt, "[Content_Types].xml is missing"},
		{"nomain.pptx", ooxmlPackage("ppt/presentation.xml", presentType), extract.ErrCorrupt, "ppt/presentation.xml is missing"},
		{"damaged.xlsx", book(sheetType, sheet(`<row><c t="inlineStr"><is><t>x</t></is></c></row><row><c`)), extract.ErrCorrupt, "sheet1.xml"},
		{"norels.xlsx", ooxmlPackage("xl/workbook.xml", sheetType,
			testdocs.File{Name: "xl/workbook.xml", Body: `<workbook ` + ssNS + `><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`},
			testdocs.File{Name: "xl/_rels/workbook.xml.rels", Body: `<Relationships xmlns="http""""o"emas>elationships Id="rId1"`},
			testdocs.File{Name: "xl/worksheets/sheet1.xml", Body: ok}), extract.ErrCorrupt, "xl/_rels/workbook.xml.rels, which says where xl/workbook.xml's sheets are, is missing or unreadable"},
		{"locked.xlsx", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...), extract.ErrEncrypted, "save it as an Excel workbook (.xlsx) without a password"},
	} {
		_, err := extract.Bytes(context.Background(), c.name, c.data, nil)
		checkUnreadable(t, err, c.name, c.want, c.says)
	}
	if doc, err := extract.Bytes(context.Background(), "ok.xlsx", book(sheetType, ok), nil); err != nil || doc.Sections[0].Text != "x" {
		t.Errorf("the same workbook with its own content type: %v", err)
	}
	// sniffed without an extension
	if f := extract.FormatOf("upload", book(sheetType, ok)); f != "xlsx" {
		t.Errorf("FormatOf a workbook without extension = %q", f)
	}
}

// TestOOXMLVariants: a macro-enabled workbook or presentation, a template and a slide show
// hold their data in the same parts as the plain kinds and are read as them (their
// vbaProject.bin is never read, their macros never run), by content type and by extension.
func TestOOXMLVariants(t *testing.T) {
	vba := testdocs.File{Name: "xl/vbaProject.bin", Body: "\xd0\xcf\x11\xe0 not read"}
	book := func(contentType string) []byte {
		return ooxmlPackage("xl/workbook.xml", contentType,
			testdocs.File{Name: "xl/workbook.xml", Body: `<workbook ` + ssNS + `><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`},
			testdocs.File{Name: "xl/_rels/workbook.xml.rels", Body: rels("rId1", "worksheet worksheets/sheet1.xml")},
			testdocs.File{Name: "xl/worksheets/sheet1.xml", Body: sheet(`<row><c t="inlineStr"><is><t>data</t></is></c></row>`)}, vba)
	}
	slides := func(contentType string) []byte {
		return ooxmlPackage("ppt/presentation.xml", contentType,
			testdocs.File{Name: "ppt/presentation.xml", Body: `<p:presentation ` + pmlNS + `><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`},
			testdocs.File{Name: "ppt/_rels/presentation.xml.rels", Body: rels("rId1", "slide slides/slide1.xml")},
			testdocs.File{Name: "ppt/slides/slide1.xml", Body: `<p:sld ` + pmlNS + `><p:cSld><p:spTree>` + shape("", run("data")) + `</p:spTree></p:cSld></p:sld>`})
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"macros.xlsm", book("application/vnd.ms-excel.sheet.macroEnabled.main+xml")},
		{"macrosheet.xlsm", ooxmlPackage("xl/workbook.xml", "application/vnd.ms-excel.sheet.macroEnabled.main+xml",
			testdocs.File{Name: "xl/workbook.xml", Body: `<workbook ` + ssNS + `><sheets><sheet name="Macro1" sheetId="1" r:id="rId1"/></sheets></workbook>`},
			testdocs.File{Name: "xl/_rels/workbook.xml.rels", Body: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.microsoft.com/office/2006/relationships/xlMacrosheet" Target="macrosheets/sheet1.xml"/></Relationships>`},
			testdocs.File{Name: "xl/macrosheets/sheet1.xml", Body: `<xm:macrosheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>data</t></is></c></row></sheetData></xm:macrosheet>`}, vba)},
		{"macros.xlsx", book("application/vnd.ms-excel.sheet.macroEnabled.main+xml")},
		{"template.xltx", book("application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml")},
		{"template.xltm", book("application/vnd.ms-excel.template.macroEnabled.main+xml")},
		{"macros.pptm", slides("application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml")},
		{"show.ppsx", slides("application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml")},
		{"show.ppsm", slides("application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml")},
		{"template.potx", slides("application/vnd.openxmlformats-officedocument.presentationml.template.main+xml")},
		{"template.potm", slides("application/vnd.ms-powerpoint.template.macroEnabled.main+xml")},
		// part names with Windows separators, xl\_rels\workbook.xml.rels (calamine's issue_530.xlsx)
		{"backslashes.xlsx", testdocs.Zip(
			testdocs.File{Name: "[Content_Types].xml", Body: `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="` + sheetType + `"/></Types>`},
			testdocs.File{Name: `_rels\.rels`, Body: rels("rId1", "officeDocument xl/workbook.xml")},
			testdocs.File{Name: `xl\workbook.xml`, Body: `<workbook ` + ssNS + `><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`},
			testdocs.File{Name: `xl\_rels\workbook.xml.rels`, Body: rels("rId1", "worksheet worksheets/sheet1.xml")},
			testdocs.File{Name: `xl\worksheets\sheet1.xml`, Body: sheet(`<row><c t="inlineStr"><is><t>data</t></is></c></row>`)})},
		// part names in another case than the references to them (POI's 49609.xlsx packs
		// "[content_types].xml"): Office Open XML compares names without ASCII case
		{"lowercase.xlsx", testdocs.Zip(
			testdocs.File{Name: "[content_types].xml", Body: `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="` + sheetType + `"/></Types>`},
			testdocs.File{Name: "_rels/.rels", Body: rels("rId1", "officeDocument xl/workbook.xml")},
			testdocs.File{Name: "xl/workbook.xml", Body: `<workbook ` + ssNS + `><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`},
			testdocs.File{Name: "xl/_rels/workbook.xml.rels", Body: rels("rId1", "worksheet worksheets/Sheet1.xml")},
			testdocs.File{Name: "xl/worksheets/sheet1.xml", Body: sheet(`<row><c t="inlineStr"><is><t>data</t></is></c></row>`)})},
	} {
		doc, err := extract.Bytes(context.Background(), c.name, c.data, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(doc.Sections) != 1 || doc.Sections[0].Text != "data" {
			t.Errorf("%s: got %+v, want one section reading data", c.name, doc.Sections)
		}
		if f := extract.FormatOf(c.name, nil); f == "" {
			t.Errorf("FormatOf(%q) knows no format", c.name)
		}
	}
}

// FuzzXLSX puts arbitrary XML into one part of a well-formed workbook: the workbook, a
// sheet, the shared strings or the styles. Each must be read or refused, never panic.
func FuzzXLSX(f *testing.F) {
	parts := []string{"xl/workbook.xml", "xl/worksheets/sheet1.xml", "xl/sharedStrings.xml", "xl/styles.xml", "xl/drawings/drawing1.xml"}
	f.Add(uint8(4), `<xdr:wsDr xmlns:xdr="x" xmlns:a="a"><mc:Fallback><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart r:id="rC"/></a:graphicData><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart r:id="rC"/></mc:Fallback></a:graphicData></xdr:wsDr>`)
	f.Add(uint8(0), `<workbook xmlns:r="r"><workbookPr date1904="true"/><sheets><sheet name="A" r:id="rId1" state="veryHidden"/><sheet name="B" r:id="rId1"/></sheets></workbook>`)
	f.Add(uint8(1), sheet(`<row><c t="s"><v>-1</v></c><c t="s"><v>0</v></c><c s="1"><v>1e308</v></c><c s="2"><v>-5</v></c><c s="1"><v>NaN</v></c><c t="b"><v>2</v></c><c t="inlineStr"><is><t>_x0000__xD800_</t><rPh><t>p</t></rPh></is></c></row>`))
	f.Add(uint8(2), `<sst><si><r><t>a</t></r><rPh><rPh><t>b</t></rPh></rPh></si><si/><t>stray</t></sst>`)
	f.Add(uint8(3), `<styleSheet><numFmts><numFmt numFmtId="1" formatCode="[h"/><numFmt numFmtId="2" formatCode="&quot;y"/></numFmts><cellXfs><xf numFmtId="1"/><xf numFmtId="2"/><xf numFmtId="x"/></cellXfs></styleSheet>`)
	f.Fuzz(func(t *testing.T, kind uint8, xml string) {
		files := map[string]string{
			parts[0]: `<workbook ` + ssNS + `><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
			parts[1]: sheet(`<row><c t="s"><v>0</v></c><c s="1"><v>45000</v></c></row>`),
			parts[2]: `<sst ` + ssNS + `><si><t>x</t></si></sst>`,
			parts[3]: `<styleSheet ` + ssNS + `><cellXfs><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>`,
			parts[4]: `<xdr:wsDr xmlns:xdr="x" xmlns:a="a" xmlns:r="r"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart xmlns:c="c" r:id="rC"/></a:graphicData></xdr:wsDr>`,
		}
		files[parts[int(kind)%len(parts)]] = xml
		zf := []testdocs.File{
			{Name: "xl/_rels/workbook.xml.rels", Body: rels("rId1", "worksheet worksheets/sheet1.xml", "rS", "sharedStrings sharedStrings.xml", "rT", "styles styles.xml")},
			{Name: "xl/worksheets/_rels/sheet1.xml.rels", Body: rels("rD", "drawing ../drawings/drawing1.xml")},
			{Name: "xl/drawings/_rels/drawing1.xml.rels", Body: rels("rC", "chart ../charts/chart1.xml")},
			{Name: "xl/charts/chart1.xml", Body: `<c:chartSpace ` + chartNS + `><c:chart>` + chartTitle(run("C")) + `</c:chart></c:chartSpace>`},
		}
		for _, p := range parts {
			zf = append(zf, testdocs.File{Name: p, Body: files[p]})
		}
		checkReadOrRefused(t, "a.xlsx", ooxmlPackage("xl/workbook.xml", sheetType, zf...))
	})
}

// FuzzPPTX puts arbitrary XML into one part of a well-formed presentation: the
// presentation, a slide, its notes, its chart or its SmartArt data. Each must be read or
// refused, never panic.
func FuzzPPTX(f *testing.F) {
	parts := []string{"ppt/presentation.xml", "ppt/slides/slide1.xml", "ppt/notesSlides/notesSlide1.xml", "ppt/charts/chart1.xml", "ppt/diagrams/data1.xml"}
	f.Add(uint8(4), diagramData())
	f.Add(uint8(4), `<dgm:dataModel><dgm:ptLst><dgm:pt modelId="a" type="doc"/><dgm:pt modelId="b"><dgm:t><a:p><a:t>x</a:t></a:p></dgm:t></dgm:pt></dgm:ptLst><dgm:cxnLst><dgm:cxn srcId="a" destId="b"/><dgm:cxn srcId="b" destId="a"/><dgm:cxn srcId="b" destId="b" srcOrd="x"/></dgm:cxnLst></dgm:dataModel>`)
	f.Add(uint8(0), `<p:presentation `+pmlNS+`><p:sldIdLst><p:sldId id="1" r:id="rId1"/><p:sldId r:id="rId1"/><p:sldId r:id="nope"/></p:sldIdLst></p:presentation>`)
	f.Add(uint8(1), `<p:sld show="0"><p:spTree><p:sp><p:nvPr><p:ph type="title"/><p:ph type="sldNum"/></p:nvPr><p:txBody><a:p><a:t>x</a:t></a:p></p:txBody></p:sp><a:tbl><a:tr><a:tc><a:tc><a:p><a:t>c</a:t></a:p></a:tc></a:tr></a:tbl></p:spTree></p:sld>`)
	f.Add(uint8(1), `<p:sld><mc:Fallback><p:sp><p:txBody></mc:Fallback></p:txBody><a:p><a:br/><a:t>t</a:t></a:p></p:sp></p:sld>`)
	f.Add(uint8(2), `<p:notes><p:sp><p:nvPr><p:ph type="body"/></p:nvPr><p:txBody><a:p><a:t>n</a:t></a:p></p:txBody></p:sp></p:notes>`)
	f.Add(uint8(3), `<c:chartSpace `+chartNS+`><c:chart>`+chartTitle()+`<c:plotArea><c:pieChart>`+series("s", `0.0"x"`, "1", "x")+`</c:pieChart><c:catAx><c:delete/></c:catAx></c:plotArea><c:legend/></c:chart></c:chartSpace>`)
	f.Add(uint8(3), `<c:chartSpace `+chartNS+`><c:chart><c:plotArea><c:barChart>`+valueSeries(`<c:dLbls><c:dLbl><c:idx val="1"/><c:delete/></c:dLbl><c:numFmt formatCode="0%" sourceLinked="0"/><c:showVal/></c:dLbls>`, "0.0", "1", "", "x")+
		valueSeries("", "", "2")+`<c:dLbls><c:showVal val="1"/></c:dLbls></c:barChart></c:plotArea></c:chart></c:chartSpace>`)
	f.Fuzz(func(t *testing.T, kind uint8, xml string) {
		files := map[string]string{
			parts[0]: `<p:presentation ` + pmlNS + `><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`,
			parts[1]: `<p:sld ` + pmlNS + `><p:cSld><p:spTree>` + shape("title", run("T")) + chartFrame("rC") +
				`<p:graphicFrame><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram"><dgm:relIds xmlns:dgm="d" r:dm="rD"/></a:graphicData></a:graphic></p:graphicFrame></p:spTree></p:cSld></p:sld>`,
			parts[2]: `<p:notes ` + pmlNS + `><p:cSld><p:spTree>` + shape("body", run("N")) + `</p:spTree></p:cSld></p:notes>`,
			parts[3]: `<c:chartSpace ` + chartNS + `><c:chart>` + chartTitle(run("C")) + `</c:chart></c:chartSpace>`,
			parts[4]: diagramData(),
		}
		files[parts[int(kind)%len(parts)]] = xml
		zf := []testdocs.File{
			{Name: "ppt/_rels/presentation.xml.rels", Body: rels("rId1", "slide slides/slide1.xml")},
			{Name: "ppt/slides/_rels/slide1.xml.rels", Body: rels("rN", "notesSlide ../notesSlides/notesSlide1.xml", "rC", "chart ../charts/chart1.xml", "rD", "diagramData ../diagrams/data1.xml")},
		}
		for _, p := range parts {
			zf = append(zf, testdocs.File{Name: p, Body: files[p]})
		}
		checkReadOrRefused(t, "a.pptx", ooxmlPackage("ppt/presentation.xml", presentType, zf...))
	})
}

// emptyRowsBook is a workbook whose one sheet has a word, then n empty rows that carry a
// style (as a sheet formatted down to its last row, 1,048,576, is written), then a word.
func emptyRowsBook(n int) []byte {
	var rows strings.Builder
	rows.WriteString(`<row r="1"><c r="A1" t="inlineStr"><is><t>first</t></is></c></row>`)
	for i := 2; i <= n+1; i++ {
		rows.WriteString(`<row r="` + strconv.Itoa(i) + `" s="1" customFormat="1" ht="15"/>`)
	}
	rows.WriteString(`<row r="` + strconv.Itoa(n+2) + `"><c t="inlineStr"><is><t>last</t></is></c></row>`)
	return workbook(false, "", `<cellXfs><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs>`, [3]string{"Big", "", sheet(rows.String())})
}

// TestXLSXEmptyRows: a sheet of many empty styled rows reads as its words, and the rows
// cost no text (BenchmarkXLSXEmptyRows times Excel's whole 1,048,576 rows).
func TestXLSXEmptyRows(t *testing.T) {
	n := 100_000
	data := emptyRowsBook(n)
	start := time.Now()
	doc, err := extract.Bytes(context.Background(), "big.xlsx", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d empty rows (%d bytes zipped): read in %v", n, len(data), time.Since(start))
	checkSections(t, doc, "xlsx", []extract.Section{{Heading: "Big", Text: "first\nlast"}})
}

func BenchmarkXLSXEmptyRows(b *testing.B) {
	data := emptyRowsBook(1_048_574)
	b.ResetTimer()
	for range b.N {
		if _, err := extract.Bytes(context.Background(), "big.xlsx", data, nil); err != nil {
			b.Fatal(err)
		}
	}
}
