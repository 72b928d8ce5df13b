package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
	"edgechat/internal/testkit/testenv"
)

// TestExtractOCR reads a scan with the real tesseract: without --ocr it says it is a scan,
// with it the page's words come out, its progress and time on stderr.
func TestExtractOCR(t *testing.T) {
	tess := testenv.Tesseract(t)
	p := filepath.Join(t.TempDir(), "scan.pdf")
	lines := []string{"The quarterly budget review meeting", "is moved to Thursday afternoon."}
	if err := os.WriteFile(p, testdocs.ScanPDF(testdocs.ScanPage{Lines: lines, JPEG: true}), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := Run([]string{"extract", p}, strings.NewReader(""), &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "looks like a scan") {
		t.Errorf("without --ocr: exit %d, stderr %q", code, errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := Run([]string{"extract", "--ocr", "--tesseract", tess, p}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	if got := strings.Join(strings.Fields(out.String()), " "); got != strings.Join(lines, " ") {
		t.Errorf("text %q, want %q", got, strings.Join(lines, " "))
	}
	if !strings.Contains(errOut.String(), "recognizing text: page 1 of 1\n") || !strings.Contains(errOut.String(), "s a page)") {
		t.Errorf("stderr %q", errOut.String())
	}
	if code := Run([]string{"extract", "--ocr-langs", "deu", p}, strings.NewReader(""), &out, &errOut); code != 2 {
		t.Errorf("--ocr-langs without --ocr: exit %d, want 2", code)
	}
}

// TestExtractOCRMixed reads a PDF with a text page and a scanned page: without --ocr the
// text page, and a note naming the scanned one (in --json too); with --ocr both, the
// scanned page recognized by the real tesseract in its place.
func TestExtractOCRMixed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "report.pdf")
	lines := []string{"The quarterly budget review meeting", "is moved to Thursday afternoon."}
	pdf := testdocs.ScanPDF(testdocs.ScanPage{Text: []string{"Minutes of the board."}}, testdocs.ScanPage{Lines: lines})
	if err := os.WriteFile(p, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	const note = "report.pdf: page 2 is a scanned image, not read — add --ocr to read its scanned pages with text recognition (tesseract)"
	var out, errOut bytes.Buffer
	if code := Run([]string{"extract", p}, strings.NewReader(""), &out, &errOut); code != 0 || out.String() != "Minutes of the board.\n\f" || errOut.String() != note+"\n" {
		t.Errorf("without --ocr: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := Run([]string{"extract", "--json", p}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("--json: exit %d", code)
	}
	var got extractJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := extractJSON{File: p, Format: "pdf", Pages: 2, Sections: []extract.Section{{Page: 1, Text: "Minutes of the board."}}, Scanned: []int{2}, Unread: []int{2}, Note: note}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("--json (-want +got):\n%s", diff)
	}

	tess := testenv.Tesseract(t)
	out.Reset()
	errOut.Reset()
	if code := Run([]string{"extract", "--ocr", "--json", "--tesseract", tess, p}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("--ocr: exit %d, stderr %q", code, errOut.String())
	}
	got = extractJSON{}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Sections) != 2 || got.Sections[1].Page != 2 || strings.Join(strings.Fields(got.Sections[1].Text), " ") != strings.Join(lines, " ") ||
		got.Pages != 2 || got.Note != "" || got.Unread != nil || !slices.Equal(got.Scanned, []int{2}) {
		t.Errorf("--ocr --json: %+v", got)
	}
	if !strings.Contains(errOut.String(), "recognizing text: page 1 of 1 (page 2 of the PDF)\n") || !strings.Contains(errOut.String(), "read 1 page in") {
		t.Errorf("--ocr: stderr %q", errOut.String())
	}
}
