package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if !strings.Contains(errOut.String(), "recognizing text: 1 of 1 pages") || !strings.Contains(errOut.String(), "s a page)") {
		t.Errorf("stderr %q", errOut.String())
	}
	if code := Run([]string{"extract", "--ocr-langs", "deu", p}, strings.NewReader(""), &out, &errOut); code != 2 {
		t.Errorf("--ocr-langs without --ocr: exit %d, want 2", code)
	}
}
