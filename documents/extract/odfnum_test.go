package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// odfItems is a text:list of items of one paragraph each; attrs go on the list.
func odfItems(attrs string, items ...string) string {
	s := `<text:list` + attrs + `>`
	for _, it := range items {
		if len(it) > 0 && it[0] == '<' { // markup of its own: a nested list, a header, …
			s += it
			continue
		}
		s += `<text:list-item><text:p>` + it + `</text:p></text:list-item>`
	}
	return s + `</text:list>`
}

// TestODFListNumbers reads LibreOffice's list labels as it draws them before the items.
func TestODFListNumbers(t *testing.T) {
	// "Numbering 123" stands in styles.xml (a named style), L1 and L2 in content.xml's
	// automatic styles
	named := `<text:list-style style:name="Numbering_20_123">
<text:list-level-style-number text:level="1" style:num-suffix="." style:num-format="1"><style:list-level-properties/></text:list-level-style-number>
<text:list-level-style-number text:level="2" style:num-suffix="." style:num-format="1" text:display-levels="2"/>
<text:list-level-style-number text:level="3" style:num-prefix="(" style:num-suffix=")" style:num-format="a"/>
</text:list-style>`
	auto := `<text:list-style style:name="L1">
<text:list-level-style-bullet text:level="1" text:bullet-char="–"/>
<text:list-level-style-bullet text:level="2" text:bullet-char="◦"/>
</text:list-style>
<text:list-style style:name="L2">
<text:list-level-style-number text:level="1" style:num-suffix="." style:num-format="I" text:start-value="4"/>
<text:list-level-style-number text:level="2" style:num-format=""/>
</text:list-style>
<text:list-style style:name="L4">
<text:list-level-style-number text:level="1" style:num-prefix="第" style:num-suffix="章" style:num-format="１, ２, ３, ..." text:start-value="9"/>
<text:list-level-style-number text:level="2" style:num-format="①, ②, ③, ..."/>
</text:list-style>
<text:list-style style:name="L3">
<text:list-level-style-number text:level="1" style:num-suffix="." style:num-format="1" text:start-value="-2"/>
</text:list-style>`
	nested := func(items ...string) string {
		return `<text:list-item><text:p>` + items[0] + `</text:p>` + odfItems("", items[1:]...) + `</text:list-item>`
	}
	for _, c := range []struct{ name, body, want string }{
		{"levels", odfItems(` text:style-name="Numbering_20_123"`, "Preheat", nested("Mix", "Flour", `<text:list-item><text:p>Water</text:p>`+odfItems("", "cold", "salted")+`</text:list-item>`), "Bake"),
			"1. Preheat\n\n2. Mix\n\n2.1. Flour\n\n2.2. Water\n\n(a) cold\n\n(b) salted\n\n3. Bake"},
		// bullets read as "•" whatever character draws them
		{"bullets", odfItems(` text:style-name="L1"`, "Milk", nested("Eggs", "brown")), "• Milk\n\n• Eggs\n\n• brown"},
		// the style's start value; a level without a number format draws nothing; an item's
		// start value; a list header has no label; an item whose text is a list
		{"start values", odfItems(` text:style-name="L2"`, "Fourth", nested("Fifth", "plain"), `<text:list-header><text:p>Header</text:p></text:list-header>`,
			`<text:list-item text:start-value="9"><text:p>Ninth</text:p><text:p>second paragraph</text:p></text:list-item>`, "Tenth",
			`<text:list-item>`+odfItems("", "deeper")+`</text:list-item>`),
			"IV. Fourth\n\nV. Fifth\n\nplain\n\nHeader\n\nIX. Ninth\n\nsecond paragraph\n\nX. Tenth\n\ndeeper"},
		// a level's negative start value is none (odfoutline.go's startValue): it starts at 1
		{"negative start", odfItems(` text:style-name="L3"`, "First", "Second"), "1. First\n\n2. Second"},
		// LibreOffice's East Asian formats, named by their first numbers
		{"east asian", odfItems(` text:style-name="L4"`, "Hello", nested("World", "Circled", "Again")), "第９章 Hello\n\n第１０章 World\n\n① Circled\n\n② Again"},
		// a list starts again unless it continues the last of its style or the one it names
		{"continue", odfItems(` xml:id="a" text:style-name="Numbering_20_123"`, "One", "Two") + `<text:p>Between.</text:p>` +
			odfItems(` text:style-name="Numbering_20_123" text:continue-numbering="true"`, "Three") +
			odfItems(` text:style-name="Numbering_20_123"`, "Again one") +
			odfItems(` text:style-name="L2" text:continue-list="a"`, "Four"),
			"1. One\n\n2. Two\n\nBetween.\n\n3. Three\n\n1. Again one\n\nIV. Four"},
		// a list of a style no part defines, and a list without a style: no label
		{"undefined", odfItems(` text:style-name="Nowhere"`, "Loose") + odfItems("", "Plain"), "Loose\n\nPlain"},
		// a table cell's items
		{"table", `<table:table><table:table-row><table:table-cell>` + odfItems(` text:style-name="Numbering_20_123"`, "Cut", "Fold") + `</table:table-cell></table:table-row></table:table>`,
			"1. Cut 2. Fold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := testdocs.Zip(
				testdocs.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.text"},
				testdocs.File{Name: "styles.xml", Body: `<?xml version="1.0"?><office:document-styles ` + odfNS + ` xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"><office:styles>` + named + `</office:styles></office:document-styles>`},
				testdocs.File{Name: "content.xml", Body: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfNS + ` xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"><office:automatic-styles>` + auto +
					`</office:automatic-styles><office:body><office:text>` + c.body + `</office:text></office:body></office:document-content>`},
			)
			doc, err := extract.Bytes(context.Background(), "a.odt", data, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "odf", []extract.Section{{Text: c.want}})
		})
	}
}
