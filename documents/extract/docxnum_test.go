package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// wordLevel is a w:lvl of numbering.xml ("" leaves w:start out).
func wordLevel(ilvl, start, format, text string, extra string) string {
	if start != "" {
		start = `<w:start w:val="` + start + `"/>`
	}
	return `<w:lvl w:ilvl="` + ilvl + `">` + start + `<w:numFmt w:val="` + format + `"/><w:lvlText w:val="` + text + `"/>` + extra +
		`<w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr><w:rPr><w:rFonts w:ascii="Symbol"/></w:rPr></w:lvl>`
}

// wordItem is a paragraph numbered by instance numID at level ilvl ("" leaves either out).
func wordItem(numID, ilvl, style, text string) string {
	ppr := ""
	if style != "" {
		ppr += `<w:pStyle w:val="` + style + `"/>`
	}
	if numID != "" || ilvl != "" {
		ppr += `<w:numPr>`
		if ilvl != "" {
			ppr += `<w:ilvl w:val="` + ilvl + `"/>`
		}
		if numID != "" {
			ppr += `<w:numId w:val="` + numID + `"/>`
		}
		ppr += `</w:numPr>`
	}
	return `<w:p><w:pPr>` + ppr + `</w:pPr>` + wordRun(text) + `</w:p>`
}

// TestDOCXListNumbers reads Word's list labels as Word draws them before the items.
func TestDOCXListNumbers(t *testing.T) {
	numbering := `<?xml version="1.0"?><w:numbering ` + wordNS + `>
<w:abstractNum w:abstractNumId="0">` + wordLevel("0", "1", "decimal", "%1.", "") + wordLevel("1", "1", "lowerLetter", "%2)", "") + wordLevel("2", "1", "lowerRoman", "(%3)", "") + `</w:abstractNum>
<w:abstractNum w:abstractNumId="1">` + wordLevel("0", "1", "bullet", "\uf0b7", "") + wordLevel("1", "1", "bullet", "o", "") + `</w:abstractNum>
<w:abstractNum w:abstractNumId="2">` + wordLevel("0", "1", "decimal", "%1", "") + wordLevel("1", "1", "decimal", "%1.%2", "") + wordLevel("2", "1", "decimal", "%1.%2.%3", "") + `</w:abstractNum>
<w:abstractNum w:abstractNumId="3">` + wordLevel("0", "3", "upperRoman", "%1.", "") + wordLevel("1", "1", "decimal", "Step %2:", `<w:lvlRestart w:val="0"/>`) + wordLevel("2", "1", "upperLetter", "%1.%3", `<w:isLgl/>`) + `</w:abstractNum>
<w:abstractNum w:abstractNumId="4"><w:numStyleLink w:val="OutlineList"/></w:abstractNum>
<w:abstractNum w:abstractNumId="5">` + wordLevel("0", "", "decimalZero", "%1", "") + wordLevel("1", "1", "lowerLetter", "%1.%2", "") + wordLevel("2", "1", "upperRoman", "%1.%2.%3", "") +
		wordLevel("3", "1", "bullet", "o", "") + wordLevel("4", "1", "decimal", "%1.%4.%5", "") + `</w:abstractNum>
<w:abstractNum w:abstractNumId="6">` + wordLevel("0", "9", "decimalFullWidth", "第%1章", "") + wordLevel("1", "1", "decimalEnclosedCircle", "%2", "") +
		wordLevel("2", "20", "decimalEnclosedParen", "%3", "") + wordLevel("3", "1", "decimalEnclosedFullstop", "%4", "") + wordLevel("4", "10", "ideographDigital", "%5", "") + `</w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
<w:num w:numId="3"><w:abstractNumId w:val="2"/></w:num>
<w:num w:numId="4"><w:abstractNumId w:val="3"/></w:num>
<w:num w:numId="5"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>
<w:num w:numId="6"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="7"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/><w:lvl w:ilvl="0"><w:start w:val="5"/><w:numFmt w:val="upperLetter"/><w:lvlText w:val="%1."/></w:lvl></w:lvlOverride></w:num>
<w:num w:numId="8"><w:abstractNumId w:val="4"/></w:num>
<w:num w:numId="9"><w:abstractNumId w:val="5"/></w:num>
<w:num w:numId="10"><w:abstractNumId w:val="6"/></w:num>
</w:numbering>`
	styles := `<?xml version="1.0"?><w:styles ` + wordNS + `>
<w:style w:type="paragraph" w:styleId="ListNumber"><w:name w:val="List Number"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="MyList"><w:name w:val="My List"/><w:basedOn w:val="ListNumber"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:pPr><w:numPr><w:numId w:val="3"/></w:numPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="3"/></w:numPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
<w:style w:type="numbering" w:styleId="OutlineList"><w:name w:val="Outline List"/><w:pPr><w:numPr><w:numId w:val="3"/></w:numPr></w:pPr></w:style>
</w:styles>`
	for _, c := range []struct {
		name, body string
		want       []extract.Section
	}{
		// levels: decimal, letters, roman; a deeper level starts again after an item above it
		{"levels", wordItem("1", "0", "", "Mix the flour.") + wordItem("1", "1", "", "Sift it.") + wordItem("1", "2", "", "Twice.") + wordItem("1", "1", "", "Weigh it.") +
			wordItem("1", "0", "", "Add water.") + wordItem("1", "1", "", "Warm."),
			[]extract.Section{{Text: "1. Mix the flour.\n\na) Sift it.\n\n(i) Twice.\n\nb) Weigh it.\n\n2. Add water.\n\na) Warm."}}},
		// bullets read as "•" whatever symbol font draws them
		{"bullets", wordItem("2", "0", "", "Milk") + wordItem("2", "1", "", "skimmed") + wordItem("2", "0", "", "Eggs"),
			[]extract.Section{{Text: "• Milk\n\n• skimmed\n\n• Eggs"}}},
		// a level's text names the levels above it: "%1.%2"; a numbered heading keeps its number
		{"outline", wordItem("", "", "Heading1", "Scope") + wordItem("3", "1", "", "Terms") + wordItem("3", "2", "", "Words") + wordItem("3", "1", "", "Limits") +
			wordItem("", "", "Heading1", "Method") + wordItem("", "", "Heading2", "Sampling"),
			[]extract.Section{{Heading: "1 Scope", Text: "1.1 Terms\n\n1.1.1 Words\n\n1.2 Limits"}, {Heading: "2 Method", Text: "2.1 Sampling"}}},
		// a list numbered by its style, one whose style is based on it, an item that leaves
		// the list (numId 0) and a paragraph that names only its level
		{"style", wordItem("", "", "ListNumber", "First") + wordItem("", "", "MyList", "Second") + wordItem("0", "", "ListNumber", "Not numbered") + wordItem("", "1", "ListNumber", "Sub"),
			[]extract.Section{{Text: "1. First\n\n2. Second\n\nNot numbered\n\na) Sub"}}},
		// start values, words around the number, w:lvlRestart 0 (never again), w:isLgl
		// (every level's number in digits)
		{"start, restart, legal", wordItem("4", "0", "", "Third part") + wordItem("4", "1", "", "Open") + wordItem("4", "2", "", "Detail") + wordItem("4", "0", "", "Fourth part") + wordItem("4", "1", "", "Close"),
			[]extract.Section{{Text: "III. Third part\n\nStep 1: Open\n\n3.1 Detail\n\nIV. Fourth part\n\nStep 2: Close"}}},
		// instances of one abstract numbering continue its count; one with w:startOverride
		// restarts it, and the others then go on from there (pandoc's lists_restart_8367)
		{"continue and restart", wordItem("1", "0", "", "One") + wordItem("1", "0", "", "Two") + `<w:p>` + wordRun("Between.") + `</w:p>` +
			wordItem("6", "0", "", "Three") + wordItem("5", "0", "", "Again one") + wordItem("1", "0", "", "Again two"),
			[]extract.Section{{Text: "1. One\n\n2. Two\n\nBetween.\n\n3. Three\n\n1. Again one\n\n2. Again two"}}},
		// an instance that redefines a level; a list linked to a numbering style
		{"override and style link", wordItem("7", "0", "", "Fifth") + wordItem("7", "0", "", "Sixth") + wordItem("8", "0", "", "Linked") + wordItem("8", "1", "", "Linked sub"),
			[]extract.Section{{Text: "E. Fifth\n\nF. Sixth\n\n1 Linked\n\n1.1 Linked sub"}}},
		// w:start left out is 0; an item under a level no item used (Tika's
		// testWORD_override_list_numbering: "2.a.I" then "2.b", not "2.a"); a bullet level
		// named in another's text draws nothing there
		{"skipped levels", wordItem("9", "0", "", "Zero") + wordItem("9", "2", "", "Deep") + wordItem("9", "1", "", "Next") + wordItem("9", "4", "", "Under a bullet") + wordItem("9", "0", "", "One"),
			[]extract.Section{{Text: "00 Zero\n\n00.a.I Deep\n\n00.b Next\n\n00..1 Under a bullet\n\n01 One"}}},
		// East Asian formats: full-width digits ("第１章", Japanese headings: docx-rs's
		// toc1.docx, whose table of contents Word wrote "第１章 Hello"), enclosed numbers up
		// to 20 and plain digits after, ideographs digit by digit
		{"east asian", wordItem("10", "0", "", "Hello") + wordItem("10", "0", "", "World") + wordItem("10", "0", "", "Again") + wordItem("10", "1", "", "Circled") +
			wordItem("10", "2", "", "Twentieth") + wordItem("10", "2", "", "Twenty-first") + wordItem("10", "3", "", "Stopped") + wordItem("10", "4", "", "Ten") + wordItem("10", "4", "", "Eleven"),
			[]extract.Section{{Text: "第９章 Hello\n\n第１０章 World\n\n第１１章 Again\n\n① Circled\n\n⒇ Twentieth\n\n21 Twenty-first\n\n⒈ Stopped\n\n一〇 Ten\n\n一一 Eleven"}}},
		// an instance numbering.xml does not define, and a level it does not: no label
		{"undefined", wordItem("99", "0", "", "Loose") + wordItem("2", "5", "", "Deep"),
			[]extract.Section{{Text: "Loose\n\nDeep"}}},
		// a table cell's items; a column of empty numbered paragraphs numbers the rows
		// (Tika's 014760.docx), an empty bullet item draws nothing
		{"table", `<w:tbl><w:tr><w:tc>` + wordItem("1", "0", "", "Cut") + wordItem("1", "0", "", "Fold") + `</w:tc></w:tr>` +
			`<w:tr><w:tc>` + wordItem("3", "0", "", "") + `</w:tc><w:tc><w:p>` + wordRun("Crew meets standards") + `</w:p></w:tc></w:tr>` +
			`<w:tr><w:tc>` + wordItem("3", "0", "", "") + `</w:tc><w:tc>` + wordItem("2", "0", "", "") + `<w:p>` + wordRun("Radios") + `</w:p></w:tc></w:tr></w:tbl>`,
			[]extract.Section{{Text: "1. Cut 2. Fold\n1\tCrew meets standards\n2\tRadios"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := testdocs.Zip(
				testdocs.File{Name: "word/document.xml", Body: `<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` + c.body + `</w:body></w:document>`},
				testdocs.File{Name: "word/numbering.xml", Body: numbering},
				testdocs.File{Name: "word/styles.xml", Body: styles},
			)
			doc, err := extract.Bytes(context.Background(), "a.docx", data, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "docx", c.want)
		})
	}
}
