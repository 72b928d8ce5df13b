package cli

import (
	"testing"

	"edgechat/documents/extract"
)

// TestPlainTextHeadings: the levels under a changed heading are written again ("Part"
// under a new "C"); a section under the same path as the one before writes none: it may
// hold a heading without text of its own (sectioner.finish), whose parent is not repeated.
func TestPlainTextHeadings(t *testing.T) {
	doc := &extract.Document{Format: "epub", Sections: []extract.Section{
		{Text: "Preface."},
		{Heading: "We happy?", Text: "One."},
		{Heading: "We happy?", Text: "Empty heading"},
		{Heading: "We happy? › Part", Text: "Three."},
		{Heading: "C › Part", Text: "Four."},
		{Heading: "C", Text: "Pending"},
	}}
	want := "Preface.\n\nWe happy?\n\nOne.\n\nEmpty heading\n\nPart\n\nThree.\n\nC\n\nPart\n\nFour.\n\nPending\n\n"
	if got := plainText(doc); got != want {
		t.Errorf("plainText = %q, want %q", got, want)
	}
}
