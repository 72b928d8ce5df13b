package extract_test

import (
	"context"
	"strings"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// TestODFHeadingNumbers reads the numbers LibreOffice's heading numbering (Tools ▸ Heading
// Numbering: styles.xml's text:outline-style) draws before headings. The expected labels
// follow the ODF 1.2 rules (text:display-levels, num-prefix/suffix, start values,
// text:restart-numbering, text:start-value, text:is-list-header) as LibreOffice shows them;
// the ODF 1.2 specification's own .odt (2,720 headings) reads with the numbers of its
// table of contents, which LibreOffice generated.
func TestODFHeadingNumbers(t *testing.T) {
	h := func(level, attrs, text string) string {
		return `<text:h text:outline-level="` + level + `"` + attrs + `>` + text + `</text:h><text:p>` + strings.ToLower(text) + ` text</text:p>`
	}
	decimal := `<text:outline-level-style text:level="1" style:num-format="1"/>
<text:outline-level-style text:level="2" style:num-format="1" text:display-levels="2"/>
<text:outline-level-style text:level="3" style:num-format="1" text:display-levels="3" style:num-suffix="."/>`
	chapters := `<text:outline-level-style text:level="1" style:num-format="I" style:num-prefix="Chapter " style:num-suffix=":" text:start-value="3"/>
<text:outline-level-style text:level="2" style:num-format="a" style:num-suffix=")"/>
<text:outline-level-style text:level="3" style:num-format=""/>`
	for _, c := range []struct {
		name, outline, paraStyles, body string
		want                            []string // each section as "heading: text"
	}{
		{"levels", decimal, "", h("1", "", "Intro") + h("2", "", "Scope") + h("2", "", "Terms") + h("3", "", "Words") + h("1", "", "Use") + h("2", "", "Start"),
			[]string{"1 Intro: intro text", "1 Intro › 1.1 Scope: scope text", "1 Intro › 1.2 Terms: terms text", "1 Intro › 1.2 Terms › 1.2.1. Words: words text",
				"2 Use: use text", "2 Use › 2.1 Start: start text"}},
		// prefix, suffix, formats and the level's start value; a level without a format
		// draws nothing
		{"chapters", chapters, "", h("1", "", "Setup") + h("2", "", "Parts") + h("3", "", "Screws") + h("1", "", "Use"),
			[]string{"Chapter III: Setup: setup text", "Chapter III: Setup › a) Parts: parts text", "Chapter III: Setup › a) Parts › Screws: screws text", "Chapter IV: Use: use text"}},
		// a list header is not numbered nor counted; text:restart-numbering starts at the
		// level's start, text:start-value at its own; numbers below start again
		{"restarts", decimal, "", h("1", "", "One") + h("1", ` text:is-list-header="true"`, "Aside") + h("1", "", "Two") + h("2", "", "Sub") +
			h("1", ` text:restart-numbering="true" text:start-value="7"`, "Seven") + h("2", "", "Again") + h("1", ` text:restart-numbering="true"`, "Reset"),
			[]string{"1 One: one text", "Aside: aside text", "2 Two: two text", "2 Two › 2.1 Sub: sub text", "7 Seven: seven text", "7 Seven › 7.1 Again: again text", "1 Reset: reset text"}},
		// a negative text:start-value is not one (the schema's are non-negative; odfdo's
		// base_text.odt has "-1" beside text:restart-numbering): the level starts again at
		// its own start value, "1", not "-1"
		{"negative start", decimal, "", h("1", "", "One") + h("1", ` text:restart-numbering="true" text:start-value="-1"`, "Again") + h("2", "", "Sub"),
			[]string{"1 One: one text", "1 Again: again text", "1 Again › 1.1 Sub: sub text"}},
		// a paragraph style that names no list style (style:list-style-name="", as
		// LibreOffice writes for a heading style outside the numbering) or another list
		// style, itself or through the style it inherits from, leaves its headings
		// unnumbered and uncounted; one naming the outline style is numbered
		{"styles", decimal, `<style:style style:name="Plain" style:family="paragraph" style:list-style-name=""/>
<style:style style:name="Other" style:family="paragraph" style:list-style-name="L9"/>
<style:style style:name="Numbered" style:family="paragraph" style:list-style-name="Outline"/>`,
			h("1", "", "First") + h("1", ` text:style-name="P1"`, "Appendix") + h("1", ` text:style-name="Other"`, "Listed") + h("1", ` text:style-name="Numbered"`, "Second"),
			[]string{"1 First: first text", "Appendix: appendix text", "Listed: listed text", "2 Second: second text"}},
		// the label the writer stored (text:number) is left out where the label is drawn,
		// and read where the document has no heading numbering
		{"stored label", decimal, "", `<text:h text:outline-level="1"><text:number>1</text:number>Known</text:h><text:p>Body.</text:p>`, []string{"1 Known: Body."}},
		{"no numbering", "", "", `<text:h text:outline-level="1"><text:number>4.</text:number>Stored</text:h>` + h("2", "", "Plain"),
			[]string{"4. Stored › Plain: plain text"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outline := ""
			if c.outline != "" {
				outline = `<text:outline-style style:name="Outline">` + c.outline + `</text:outline-style>`
			}
			data := testdocs.Zip(
				testdocs.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.text"},
				testdocs.File{Name: "styles.xml", Body: `<?xml version="1.0"?><office:document-styles ` + odfNS + ` xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"><office:styles>` +
					c.paraStyles + `<text:list-style style:name="L9"><text:list-level-style-number text:level="1" style:num-format="1"/></text:list-style>` + outline + `</office:styles></office:document-styles>`},
				testdocs.File{Name: "content.xml", Body: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfNS + ` xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"><office:automatic-styles>` +
					`<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Plain"/></office:automatic-styles><office:body><office:text>` + c.body + `</office:text></office:body></office:document-content>`},
			)
			doc, err := extract.Bytes(context.Background(), "a.odt", data, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range doc.Sections {
				got = append(got, s.Heading+": "+s.Text)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
