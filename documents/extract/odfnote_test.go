package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
)

// TestODFShownNotes: a spreadsheet cell's comment that Calc shows on the sheet
// (office:display="true", Show Comment) is read in its cell, after the cell's text and
// without its author and date; a comment shown only on hovering, and a text document's
// comments, are left out.
func TestODFShownNotes(t *testing.T) {
	sheet := `<office:spreadsheet><table:table table:name="Functions"><table:table-row>
<table:table-cell><text:p>Help Topic</text:p></table:table-cell>
<table:table-cell><office:annotation office:display="true"><dc:creator>John Walkenbach</dc:creator><dc:date>2008-11-28T00:00:00</dc:date><meta:date-string>11/28/2008</meta:date-string><text:p>Clicking a link</text:p><text:p>opens the topic.</text:p></office:annotation><text:p>Link</text:p></table:table-cell>
<table:table-cell><office:annotation><dc:creator>Ed</dc:creator><text:p>HIDDEN NOTE</text:p></office:annotation><text:p>Plain</text:p></table:table-cell>
<table:table-cell><office:annotation office:display="true"><text:p>Note of an empty cell</text:p></office:annotation></table:table-cell>
</table:table-row></table:table></office:spreadsheet>`
	doc, err := extract.Bytes(context.Background(), "notes.ods", odf("application/vnd.oasis.opendocument.spreadsheet", sheet), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "odf", []extract.Section{
		{Heading: "Functions", Text: "Help Topic\tLink Clicking a link opens the topic.\tPlain\tNote of an empty cell"},
	})

	text := `<office:text><text:p>Gulls<office:annotation office:display="true"><dc:creator>Ed</dc:creator><text:p>REVIEWER COMMENT</text:p></office:annotation> fly.</text:p>
<table:table table:name="T"><table:table-row><table:table-cell><office:annotation office:display="true"><text:p>CELL COMMENT</text:p></office:annotation><text:p>Tern</text:p></table:table-cell></table:table-row></table:table></office:text>`
	doc, err = extract.Bytes(context.Background(), "gulls.odt", odf("application/vnd.oasis.opendocument.text", text), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "odf", []extract.Section{{Text: "Gulls fly.\n\nTern"}})
}
