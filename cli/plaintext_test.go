package cli

import (
	"testing"

	"edgechat/documents/extract"
)

// TestPlainTextHeadings: every heading a section starts under is written, also one with
// the same words as the heading before it (two chapters both called "We happy?") and the
// deeper levels under a changed one ("B" under a new "C").
func TestPlainTextHeadings(t *testing.T) {
	doc := &extract.Document{Format: "epub", Sections: []extract.Section{
		{Text: "Preface."},
		{Heading: "We happy?", Text: "One."},
		{Heading: "We happy?", Text: "Two."},
		{Heading: "We happy? › Part", Text: "Three."},
		{Heading: "C › Part", Text: "Four."},
		{Heading: "C", Text: "Pending"},
	}}
	want := "Preface.\n\nWe happy?\n\nOne.\n\nWe happy?\n\nTwo.\n\nPart\n\nThree.\n\nC\n\nPart\n\nFour.\n\nPending\n\n"
	if got := plainText(doc); got != want {
		t.Errorf("plainText = %q, want %q", got, want)
	}
}
