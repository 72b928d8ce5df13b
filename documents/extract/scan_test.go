package extract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/testdocs"
)

func TestPDFImages(t *testing.T) {
	pdf := testdocs.ScanPDF(testdocs.ScanPage{Lines: []string{"one"}}, testdocs.ScanPage{Lines: []string{"two"}, JPEG: true})
	_, err := Bytes(context.Background(), "scan.pdf", pdf, nil)
	if !IsScan(err) || !errors.Is(err, ErrNoText) {
		t.Fatalf("extract: %v, want a scan", err)
	}
	if IsScan(errEmpty{}) {
		t.Error("an empty document is a scan")
	}
	var got []string
	err = PDFImages(context.Background(), "scan.pdf", pdf, nil, func(img Image) error {
		got = append(got, fmt.Sprintf("%d/%d %s %dx%d %d dpi", img.Page, img.Pages, img.Format, img.Width, img.Height, img.DPI))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1/2 png 1700x2200 200 dpi", "2/2 jpeg 1700x2200 200 dpi"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}

	ctx, cancel := context.WithCancel(context.Background())
	err = PDFImages(ctx, "scan.pdf", pdf, nil, func(Image) error { cancel(); return ctx.Err() })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	var u *Unreadable
	if err := PDFImages(context.Background(), "bad.pdf", []byte("not a PDF"), nil, func(Image) error { return nil }); !errors.As(err, &u) || !errors.Is(err, ErrCorrupt) {
		t.Errorf("not a PDF: %v, want an *Unreadable, damaged", err)
	}
}

func TestScannedPage(t *testing.T) {
	for _, c := range []struct {
		name  string
		text  string
		cover float64
		want  bool
	}{
		{"a scanned page", "", 1, true},
		{"a scan with its page number", "12", 1, true},
		{"a scan with a stamp", "CONFIDENTIAL — Page 3 of 40", 0.98, true},
		{"a scan placed with margins", "", 0.55, true},
		{"a scan with its text layer", testdocs.Filler(1, 300), 1, false},
		{"a figure with a caption", "Figure 3: accuracy of the models on the test set, by size", 0.7, false},
		{"a blank page", "", 0, false},
		{"a small picture", "", 0.3, false},
		{"a text page", testdocs.Filler(2, 2000), 0, false},
		{"spaces and punctuation", " . , ; — \n\n", 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ScannedPage(c.text, c.cover); got != c.want {
				t.Errorf("ScannedPage(%q, %.2f) = %v, want %v", c.text, c.cover, got, c.want)
			}
		})
	}
}

// A PDF of text pages and scanned ones reads its text pages and names its scanned pages;
// a scanned page with a stamp keeps the stamp, one with its own text layer is text.
func TestMixedPDF(t *testing.T) {
	pdf := testdocs.ScanPDF(
		testdocs.ScanPage{Text: []string{"The report begins with words set in type."}},
		testdocs.ScanPage{Lines: []string{"a signature page"}},
		testdocs.ScanPage{Text: []string{"The report goes on in type."}},
		testdocs.ScanPage{Lines: []string{"an appendix"}, JPEG: true, Text: []string{"Page 4"}},
		testdocs.ScanPage{Lines: []string{"a page with its text layer"}, Text: strings.Fields(testdocs.Filler(3, 400))},
	)
	doc, err := Bytes(context.Background(), "mixed.pdf", pdf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{2, 4}, doc.Scanned); diff != "" {
		t.Errorf("scanned pages (-want +got):\n%s", diff)
	}
	var pages []int
	for _, s := range doc.Sections {
		pages = append(pages, s.Page)
	}
	if diff := cmp.Diff([]int{1, 3, 4, 5}, pages); diff != "" {
		t.Errorf("pages with text (-want +got):\n%s", diff)
	}

	var got []int
	err = PDFImages(context.Background(), "mixed.pdf", pdf, doc.Scanned, func(img Image) error {
		got = append(got, img.Page)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{2, 4}, got); diff != "" {
		t.Errorf("images handed on, by page (-want +got):\n%s", diff)
	}

	// A text PDF without scanned pages names none.
	doc, err = Bytes(context.Background(), "text.pdf", testdocs.ScanPDF(testdocs.ScanPage{Text: []string{"Only type."}}), nil)
	if err != nil || doc.Scanned != nil {
		t.Errorf("a text PDF: %v, scanned pages %v", err, doc.Scanned)
	}
}

func TestWithRecognized(t *testing.T) {
	sections := []Section{{Page: 1, Text: "one"}, {Page: 3, Text: "three"}, {Page: 4, Text: "4"}, {Page: 6, Text: "six"}}
	recognized := []Section{{Page: 2, Text: "read on two"}, {Page: 4, Text: "read on four"}, {Page: 5, Text: "read on five"}, {Page: 7, Text: "read on seven"}}
	want := []Section{
		{Page: 1, Text: "one"}, {Page: 2, Text: "read on two"}, {Page: 3, Text: "three"}, {Page: 4, Text: "read on four\n\n4"},
		{Page: 5, Text: "read on five"}, {Page: 6, Text: "six"}, {Page: 7, Text: "read on seven"},
	}
	if diff := cmp.Diff(want, WithRecognized(sections, recognized)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(sections, WithRecognized(sections, nil)); diff != "" {
		t.Errorf("nothing recognized (-want +got):\n%s", diff)
	}
}

func TestDescribeScanned(t *testing.T) {
	for _, c := range []struct {
		pages []int
		want  string
	}{
		{[]int{4}, "page 4 is a scanned image"},
		{[]int{2, 4}, "2 pages (2 and 4) are scanned images"},
		{[]int{2, 4, 7}, "3 pages (2, 4 and 7) are scanned images"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, "10 pages (1, 2, 3, 4, 5, 6, 7, 8, …) are scanned images"},
	} {
		if got := DescribeScanned(c.pages); got != c.want {
			t.Errorf("DescribeScanned(%v) = %q, want %q", c.pages, got, c.want)
		}
	}
}
