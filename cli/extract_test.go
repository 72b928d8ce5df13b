package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// TestExtract runs `edgechat extract` on documents of each format: plain text with a PDF's
// pages ended by form feeds and other formats' headings on lines of their own, --json
// with the sections, and an unreadable file's reason.
func TestExtract(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pdf := write("two.pdf", testdocs.PDF([]string{"first page", "second page"}))
	docx := write("notes.docx", testdocs.DOCX([]testdocs.Para{{Style: "Heading1", Text: "Intro"}, {Text: "Body text."}, {Style: "Heading8", Text: "Deep"}, {Text: "Deep text."}}))
	odt := write("guide.odt", testdocs.Zip(
		testdocs.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.text"},
		testdocs.File{Name: "content.xml", Body: `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:h text:outline-level="1">Guide</text:h><text:p>Read me.</text:p></office:text></office:body></office:document-content>`}))
	epub := write("book.epub", testdocs.Zip(
		testdocs.File{Name: "mimetype", Body: "application/epub+zip"},
		testdocs.File{Name: "META-INF/container.xml", Body: `<container><rootfiles><rootfile full-path="book.opf"/></rootfiles></container>`},
		testdocs.File{Name: "book.opf", Body: `<package><manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/></spine></package>`},
		testdocs.File{Name: "a.xhtml", Body: `<html><body><h1>Chapter</h1><p>Once upon a time.</p></body></html>`}))
	png := write("photo.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	tests := []struct {
		name     string
		args     []string
		want     string
		wantCode int
	}{
		{"pdf", []string{pdf}, "first page\n\fsecond page\n\f", 0},
		{"docx", []string{docx}, "Intro\n\nBody text.\n\nDeep\n\nDeep text.\n\n", 0},
		{"odt", []string{odt}, "Guide\n\nRead me.\n\n", 0},
		{"epub", []string{epub}, "Chapter\n\nOnce upon a time.\n\n", 0},
		{"epub json", []string{epub, "--json"}, `"format":"epub","sections":[{"heading":"Chapter","text":"Once upon a time."}]`, 0},
		{"unsupported json", []string{"--json", png}, `"reason":"unsupported"`, 1},
		{"usage", nil, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Run(append([]string{"extract"}, tt.args...), strings.NewReader(""), &out, &errOut)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.wantCode, errOut.String())
			}
			got := out.String()
			if strings.HasSuffix(tt.name, "json") {
				var v map[string]any
				if err := json.Unmarshal(out.Bytes(), &v); err != nil {
					t.Fatalf("not JSON: %q", got)
				}
				if !strings.Contains(got, tt.want) {
					t.Errorf("%s\ndoes not hold %s", got, tt.want)
				}
				return
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
