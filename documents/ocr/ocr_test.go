package ocr

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
	"edgechat/internal/testkit/testenv"
)

// scanLines is about a page of prose cut into lines of ~60 characters.
func scanLines(seed uint64) []string {
	var lines []string
	var line strings.Builder
	for _, w := range strings.Fields(testdocs.Filler(seed, 900)) {
		if line.Len()+len(w) > 60 {
			lines = append(lines, line.String())
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(w)
	}
	return append(lines, line.String())
}

// words are text's words, lower case, without punctuation.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// recall is the share of want's words found in got (each found once at most).
func recall(want, got string) float64 {
	have := map[string]int{}
	for _, w := range words(got) {
		have[w]++
	}
	ws := words(want)
	found := 0
	for _, w := range ws {
		if have[w] > 0 {
			have[w]--
			found++
		}
	}
	return float64(found) / float64(len(ws))
}

func engine(t testing.TB) Engine {
	t.Helper()
	e, err := Find(context.Background(), testenv.Tesseract(t))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestReadPDF runs the real tesseract on a scan the test draws: one page stored as a Flate
// gray image, one as a JPEG.
func TestReadPDF(t *testing.T) {
	e := engine(t)
	if !strings.HasPrefix(e.Version, "5.") && !strings.HasPrefix(e.Version, "4.") {
		t.Errorf("version %q", e.Version)
	}
	pages := [][]string{scanLines(1), scanLines(2)}
	pdf := testdocs.ScanPDF(testdocs.ScanPage{Lines: pages[0]}, testdocs.ScanPage{Lines: pages[1], JPEG: true})
	if _, err := extract.Bytes(context.Background(), "scan.pdf", pdf, nil); !extract.IsScan(err) {
		t.Fatalf("extract: %v, want a scan", err)
	}
	var progress [][2]int
	start := time.Now()
	got, err := e.ReadPDF(context.Background(), "scan.pdf", pdf, "eng", nil, func(done, total int) { progress = append(progress, [2]int{done, total}) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tesseract %s: %.2f s per page", e.Version, time.Since(start).Seconds()/2)
	if diff := cmp.Diff([][2]int{{0, 2}, {1, 2}, {2, 2}}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if len(got) != 2 {
		t.Fatalf("%d sections, want 2: %+v", len(got), got)
	}
	for i, s := range got {
		if s.Page != i+1 {
			t.Errorf("section %d is page %d", i, s.Page)
		}
		r := recall(strings.Join(pages[i], " "), s.Text)
		t.Logf("page %d: word recall %.3f", s.Page, r)
		if r < 0.9 {
			t.Errorf("page %d: word recall %.3f < 0.9; read:\n%s", s.Page, r, s.Text)
		}
	}
}

// TestReadPDFPages runs the real tesseract on the scanned pages of a PDF with text: a
// report whose second page is a scanned letter (an inline image, BI … EI) and whose fourth a
// scanned appendix (a JPEG image XObject) with a page number set in type.
func TestReadPDFPages(t *testing.T) {
	e := engine(t)
	scans := map[int][]string{2: scanLines(3), 4: scanLines(4)}
	pdf := testdocs.ScanPDF(
		testdocs.ScanPage{Text: []string{"Annual report of the water board.", "The letter that follows was scanned."}},
		testdocs.ScanPage{Lines: scans[2], Inline: true},
		testdocs.ScanPage{Text: []string{"The appendix that follows was scanned too."}},
		testdocs.ScanPage{Lines: scans[4], JPEG: true, Text: []string{"4"}},
	)
	doc, err := extract.Bytes(context.Background(), "report.pdf", pdf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{2, 4}, doc.Scanned); diff != "" {
		t.Fatalf("scanned pages (-want +got):\n%s", diff)
	}
	var progress [][2]int
	start := time.Now()
	got, err := e.ReadPDF(context.Background(), "report.pdf", pdf, "eng", doc.Scanned, func(done, total int) { progress = append(progress, [2]int{done, total}) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tesseract %s: %.2f s per scanned page", e.Version, time.Since(start).Seconds()/2)
	if diff := cmp.Diff([][2]int{{0, 2}, {1, 2}, {2, 2}}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	sections := extract.WithRecognized(doc.Sections, got)
	var pages []int
	for _, s := range sections {
		pages = append(pages, s.Page)
		if lines, ok := scans[s.Page]; ok {
			r := recall(strings.Join(lines, " "), s.Text)
			t.Logf("page %d: word recall %.3f", s.Page, r)
			if r < 0.9 {
				t.Errorf("page %d: word recall %.3f < 0.9; read:\n%s", s.Page, r, s.Text)
			}
		}
	}
	if diff := cmp.Diff([]int{1, 2, 3, 4}, pages); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if last := sections[len(sections)-1].Text; !strings.HasSuffix(last, "\n\n4") {
		t.Errorf("page 4 lost its page number: ...%q", last[max(0, len(last)-40):])
	}

	// A scanned page that is a picture without text is no error.
	blank := testdocs.ScanPDF(testdocs.ScanPage{Text: []string{"A page of type."}}, testdocs.ScanPage{Lines: []string{""}})
	if got, err := e.ReadPDF(context.Background(), "photo.pdf", blank, "eng", []int{2}, nil); err != nil || got != nil {
		t.Errorf("a blank scanned page: %v, %+v; want nothing and no error", err, got)
	}
}

func TestReadPDFCancel(t *testing.T) {
	e := engine(t)
	pdf := testdocs.ScanPDF(testdocs.ScanPage{Lines: scanLines(1)}, testdocs.ScanPage{Lines: scanLines(2)})
	ctx, cancel := context.WithCancel(context.Background())
	_, err := e.ReadPDF(ctx, "scan.pdf", pdf, "eng", nil, func(done, total int) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	mixed := testdocs.ScanPDF(testdocs.ScanPage{Text: []string{"Type."}}, testdocs.ScanPage{Lines: scanLines(1)}, testdocs.ScanPage{Lines: scanLines(2)})
	ctx, cancel = context.WithCancel(context.Background())
	var progress [][2]int
	_, err = e.ReadPDF(ctx, "mixed.pdf", mixed, "eng", []int{2, 3}, func(done, total int) {
		progress = append(progress, [2]int{done, total})
		if done == 1 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || len(progress) != 2 {
		t.Errorf("mixed: err = %v after progress %v, want context.Canceled at the second page", err, progress)
	}
}

func TestFindAndLanguages(t *testing.T) {
	if _, err := Find(context.Background(), "/no/such/tesseract"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("Find of a missing program: %v, want ErrNotInstalled", err)
	}
	e := engine(t)
	if err := e.CheckLanguages(context.Background(), "eng+xyz"); !errors.Is(err, ErrNoLanguage) || !strings.Contains(err.Error(), "tesseract-ocr-xyz") {
		t.Errorf("CheckLanguages(eng+xyz) = %v, want ErrNoLanguage naming the package", err)
	}
	if err := e.CheckLanguages(context.Background(), "eng"); err != nil {
		t.Errorf("CheckLanguages(eng) = %v", err)
	}
	if _, err := e.ReadPDF(context.Background(), "scan.pdf", testdocs.ScannedPDF(1), "xyz", nil, nil); !errors.Is(err, ErrNoLanguage) {
		t.Errorf("ReadPDF with a missing language: %v", err)
	}
}

// BenchmarkReadPDFPage is one scanned page (200 dpi, Flate gray) read by the real tesseract.
func BenchmarkReadPDFPage(b *testing.B) {
	e := engine(b)
	pdf := testdocs.ScanPDF(testdocs.ScanPage{Lines: scanLines(1)})
	for b.Loop() {
		if _, err := e.ReadPDF(context.Background(), "scan.pdf", pdf, "eng", nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadPDFScannedPage is the scanned page of a two-page PDF with text (the page of
// BenchmarkReadPDFPage after a page of type) read by the real tesseract.
func BenchmarkReadPDFScannedPage(b *testing.B) {
	e := engine(b)
	pdf := testdocs.ScanPDF(testdocs.ScanPage{Text: []string{"A page of type."}}, testdocs.ScanPage{Lines: scanLines(1)})
	for b.Loop() {
		if _, err := e.ReadPDF(context.Background(), "mixed.pdf", pdf, "eng", []int{2}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
