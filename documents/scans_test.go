package documents_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/documents"
	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
	"edgechat/reply"
)

// mixedPDF is a report of three pages: type, a scanned letter, type again.
func mixedPDF() []byte {
	return testdocs.ScanPDF(
		testdocs.ScanPage{Text: []string{"The water board met in March."}},
		testdocs.ScanPage{Lines: []string{"Dear board, the pumps are fixed."}},
		testdocs.ScanPage{Text: []string{"The board thanked the engineers."}},
	)
}

// fakeRecognizer is a text recognizer that reads "Recognized words." on each page it is
// given, recording the pages it was asked for.
type fakeRecognizer struct {
	mu    sync.Mutex
	asked [][]int
	err   error
}

func (f *fakeRecognizer) scans() documents.Scans {
	return documents.Scans{Read: func(ctx context.Context, name string, data []byte, pages []int, progress func(done, total int)) ([]extract.Section, error) {
		f.mu.Lock()
		f.asked = append(f.asked, pages)
		f.mu.Unlock()
		if f.err != nil {
			return nil, f.err
		}
		var out []extract.Section
		for i, p := range pages {
			progress(i, len(pages))
			out = append(out, extract.Section{Page: p, Text: "Recognized words."})
		}
		progress(len(pages), len(pages))
		return out, nil
	}}
}

func pagesOf(d *documents.Doc) []int {
	var pages []int
	for _, s := range d.Sections {
		pages = append(pages, s.Page)
	}
	return pages
}

// A PDF with a scanned page, text recognition off, reads its text pages and says which page
// is a scan and how to have it read; its saved index remembers that. Text recognition turned
// on reads that page, once, in its place.
func TestMixedPDFScannedPages(t *testing.T) {
	a := attach(writeFile(t, t.TempDir(), "report.pdf", mixedPDF()))[0]
	const advice = "turn on Settings → Documents → Read scanned PDFs with text recognition to read it"
	off := func() documents.Scans { return documents.Scans{Advice: advice} }
	const note = "report.pdf: page 2 is a scanned image, not read — " + advice

	lib := documents.NewLibrary()
	lib.SetScans(off)
	d, err := lib.Open(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Note != note {
		t.Errorf("note %q, want %q", d.Note, note)
	}
	if diff := cmp.Diff([]int{1, 3}, pagesOf(d)); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	e := &documents.Engine{Library: lib}
	p, err := e.Prepare(context.Background(), question("Who fixed the pumps?", []reply.Attachment{a}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{note}, p.Problems); diff != "" || len(p.Sources) == 0 {
		t.Errorf("problems (-want +got):\n%s\nsources %+v", diff, p.Sources)
	}

	// From the saved index, by a new library (the app started again): the same note.
	lib2 := documents.NewLibrary()
	lib2.SetScans(off)
	if d, err := lib2.Open(context.Background(), a, nil); err != nil || d.Note != note {
		t.Errorf("loaded: %v, note %q", err, d.Note)
	}

	// Text recognition on: the scanned page is read in its place, with progress naming it.
	rec := &fakeRecognizer{}
	lib.SetScans(rec.scans)
	var status []string
	d, err = lib.Open(context.Background(), a, func(msg string) { status = append(status, msg) })
	if err != nil {
		t.Fatal(err)
	}
	if d.Note != "" || !slices.Contains(status, "Recognizing text in report.pdf: page 1 of 1 (page 2 of the PDF)") {
		t.Errorf("note %q, status %q", d.Note, status)
	}
	if diff := cmp.Diff([]int{1, 2, 3}, pagesOf(d)); diff != "" || d.Sections[1].Text != "Recognized words." {
		t.Errorf("pages (-want +got):\n%s\n%+v", diff, d.Sections)
	}
	// Once: from memory, and from the saved index.
	lib3 := documents.NewLibrary()
	lib3.SetScans(rec.scans)
	for _, l := range []*documents.Library{lib, lib3} {
		if d, err := l.Open(context.Background(), a, nil); err != nil || len(d.Sections) != 3 {
			t.Errorf("again: %v, %+v", err, d)
		}
	}
	if diff := cmp.Diff([][]int{{2}}, rec.asked); diff != "" {
		t.Errorf("pages recognized (-want +got):\n%s", diff)
	}
}

// Text recognition that fails keeps the text pages and says why; cancelled, it is an error.
func TestMixedPDFRecognitionFails(t *testing.T) {
	a := attach(writeFile(t, t.TempDir(), "report.pdf", mixedPDF()))[0]
	lib := documents.NewLibrary()
	rec := &fakeRecognizer{err: errors.New("tesseract crashed")}
	lib.SetScans(rec.scans)
	d, err := lib.Open(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.Note, "report.pdf: page 2 is a scanned image, not read: text recognition failed: tesseract crashed") {
		t.Errorf("note %q", d.Note)
	}
	if diff := cmp.Diff([]int{1, 3}, pagesOf(d)); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}

	// Images text recognition cannot decode: said so, with no advice to check tesseract.
	jbig2 := attach(writeFile(t, t.TempDir(), "jbig2.pdf", mixedPDF()))[0]
	rec.err = fmt.Errorf("%w: text recognition cannot read its images (page 2: the image cannot be read: JBIG2)", extract.ErrNoText)
	if d, err := lib.Open(context.Background(), jbig2, nil); err != nil || d.Note != "jbig2.pdf: page 2 is a scanned image, not read: text recognition cannot read its images (page 2: the image cannot be read: JBIG2)" {
		t.Errorf("JBIG2: %v, note %q", err, d.Note)
	}

	b := attach(writeFile(t, t.TempDir(), "other.pdf", mixedPDF()))[0]
	ctx, cancel := context.WithCancel(context.Background())
	lib.SetScans(func() documents.Scans {
		return documents.Scans{Read: func(ctx context.Context, _ string, _ []byte, _ []int, _ func(int, int)) ([]extract.Section, error) {
			cancel()
			return nil, ctx.Err()
		}}
	})
	if _, err := lib.Open(ctx, b, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
