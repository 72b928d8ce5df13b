package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
)

// TestODFPageNames: a slide the user did not name is stored as "page" and its number and
// shown by Impress as "Slide N" (Draw: "Page N"); a name the user gave stays, also one
// that only looks like another slide's default ("page7" on the third slide).
func TestODFPageNames(t *testing.T) {
	frame := func(s string) string {
		return `<draw:frame><draw:text-box><text:p>` + s + `</text:p></draw:text-box></draw:frame>`
	}
	slides := `<office:presentation><draw:page draw:name="page1">` + frame("Welcome") + `</draw:page>` +
		`<draw:page draw:name="Plan">` + frame("Ship it") + `</draw:page>` +
		`<draw:page draw:name="page7">` + frame("Later") + `</draw:page></office:presentation>`
	doc, err := extract.Bytes(context.Background(), "talk.odp", odf("application/vnd.oasis.opendocument.presentation", slides), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "odf", []extract.Section{{Heading: "Slide 1", Text: "Welcome"}, {Heading: "Plan", Text: "Ship it"}, {Heading: "page7", Text: "Later"}})

	drawing := `<office:drawing><draw:page draw:name="page1">` + frame("Floor plan") + `</draw:page></office:drawing>`
	doc, err = extract.Bytes(context.Background(), "plan.odg", odf("application/vnd.oasis.opendocument.graphics", drawing), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "odf", []extract.Section{{Heading: "Page 1", Text: "Floor plan"}})
}
