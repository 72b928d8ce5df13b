package extract_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
	"edgechat/internal/testkit/testenv"
)

// TestHostileDocuments reads files made to exhaust a reader: each must be refused (or read)
// quickly, with a reason a person understands, and never take the process down.
func TestHostileDocuments(t *testing.T) {
	tests := []struct {
		name string
		data func() []byte
		want error  // nil: read, and the text holds says
		says string // in the error, or in the text
	}{
		// A 6 MB PDF whose content stream inflates to 2.2 GB.
		{"bomb.pdf", func() []byte { return testdocs.FlateBombPDF(2_200_000_000) }, extract.ErrTooBig, "unpacks to more than 100 MB"},
		{"one-string.pdf", func() []byte { return testdocs.OneStringBombPDF(2_200_000_000) }, extract.ErrTooBig, "unpacks to more than 100 MB"},
		// One page listed 10⁶ times.
		{"pages.pdf", func() []byte { return testdocs.RepeatedPagePDF(1_000_000) }, extract.ErrTooBig, "more than 20000 pages"},
		{"nested.pdf", func() []byte { return testdocs.NestedPDF(1_000_000) }, extract.ErrCorrupt, "nests too deep"},
		{"form-loop.pdf", testdocs.FormLoopPDF, nil, "page text\n\nform text"},
		// Zip parts that unpack to 150 MB, and one that claims 1 KB (refused when it unpacks
		// to more than it claims).
		{"bomb.docx", func() []byte { return testdocs.ZipBomb("word/document.xml", 150_000_000, 150_000_000) }, extract.ErrTooBig, "word/document.xml unpacks to 150 MB"},
		{"bomb.odt", func() []byte { return testdocs.ZipBomb("content.xml", 150_000_000, 150_000_000) }, extract.ErrTooBig, "content.xml unpacks to 150 MB"},
		{"lying.odt", func() []byte { return testdocs.ZipBomb("content.xml", 150_000_000, 1000) }, extract.ErrCorrupt, "content.xml: zip: not a valid zip file"},
		{"bomb.epub", func() []byte {
			return testdocs.ZipBomb("OEBPS/c.xhtml", 150_000_000, 150_000_000,
				testdocs.File{Name: "META-INF/container.xml", Body: `<container><rootfiles><rootfile full-path="OEBPS/p.opf"/></rootfiles></container>`},
				testdocs.File{Name: "OEBPS/p.opf", Body: `<package><manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>`})
		}, extract.ErrTooBig, "OEBPS/c.xhtml unpacks to 150 MB"},
		{"many.epub", func() []byte { return testdocs.ManyEntriesZip(extract.MaxZipEntries + 1) }, extract.ErrTooBig, "packs 10001 files, at most 10000"},
		// 10⁶ nested spans in an ODT, tables in a DOCX.
		{"nested.odt", func() []byte {
			return testdocs.Zip(testdocs.File{Name: "content.xml", Body: "<office:document-content><office:body><office:text><text:p>" +
				strings.Repeat("<text:span>", 1_000_000) + "deep" + strings.Repeat("</text:span>", 1_000_000) + "</text:p></office:text></office:body></office:document-content>"})
		}, extract.ErrCorrupt, "content.xml nests too deep"},
		{"nested.docx", func() []byte {
			return testdocs.Zip(testdocs.File{Name: "word/document.xml", Body: "<w:document><w:body>" +
				strings.Repeat("<w:tbl><w:tr><w:tc>", 300_000) + strings.Repeat("</w:tc></w:tr></w:tbl>", 300_000) + "</w:body></w:document>"})
		}, extract.ErrCorrupt, "word/document.xml nests too deep"},
		// 10⁶ nested RTF groups (Outlook's HTML in RTF nests thousands: rtfbin_test.go)
		{"nested.rtf", func() []byte {
			return []byte(`{\rtf1\ansi ` + strings.Repeat("{", 1_000_000) + "deep" + strings.Repeat("}", 1_000_000) + "}")
		}, extract.ErrCorrupt, "its groups nest too deep"},
		// 10⁶ nested div elements.
		{"nested.html", func() []byte { return testdocs.NestedHTML(1_000_000) }, nil, "Deep inside.\n\nbottom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data()
			clock := testenv.StartClock()
			doc, err := extract.Bytes(context.Background(), tt.name, data, nil)
			took := clock.Elapsed()
			t.Logf("%s (%d KB): %v in %v (CPU; wall %v)", tt.name, len(data)>>10, err, took.Round(time.Millisecond), clock.Wall().Round(time.Millisecond))
			if took > testenv.Bound(20*time.Second) {
				t.Errorf("took %v of CPU time", took)
			}
			if tt.want != nil {
				checkUnreadable(t, err, tt.name, tt.want, tt.says)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var text []string
			for _, s := range doc.Sections {
				text = append(text, s.Text)
			}
			if got := strings.Join(text, "\n\n"); !strings.Contains(got, tt.says) {
				t.Errorf("text %.300q does not hold %q", got, tt.says)
			}
		})
	}
}

// TestFileSizeLimit: 100 MB is 100,000,000 bytes, as the README says.
func TestFileSizeLimit(t *testing.T) {
	for _, size := range []int64{extract.MaxFileBytes + 1, 100_000_009} {
		path := filepath.Join(t.TempDir(), "huge.md")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil { // sparse: costs no disk
			t.Fatal(err)
		}
		_, err := extract.File(context.Background(), path, nil)
		checkUnreadable(t, err, "huge.md", extract.ErrTooBig, "101 MB; at most 100 MB")
	}
}

// TestTextLimit: a small file that unpacks to more text than the budget is refused.
func TestTextLimit(t *testing.T) {
	body := strings.Repeat("word ", extract.MaxTextBytes/5+10)
	_, err := extract.Bytes(context.Background(), "big.txt", []byte(body), nil)
	checkUnreadable(t, err, "big.txt", extract.ErrTooBig, "more than 50 MB of text")
}

// TestCancelled: the caller's context stops a long read, and is not blamed on the file.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := extract.Bytes(ctx, "long.pdf", testdocs.LongPDF(50, 0), nil)
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("error %v, want the context's", err)
	}
}

// TestEveryCharacterPassesThrough: what a person can type — private-use characters,
// controls, non-characters — reaches the text as it is; only what cannot be read (a PDF
// glyph without any mapping) is dropped.
func TestEveryCharacterPassesThrough(t *testing.T) {
	odd := "private \ue000\U000F0001, bell \a, escape \x1b, non-characters \ufdd0\uffff, zero-width \u200b, emoji 😀"
	for _, name := range []string{"odd.txt", "odd.md", "odd.go"} {
		doc, err := extract.Bytes(context.Background(), name, []byte(odd), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := doc.Sections[0].Text; got != odd {
			t.Errorf("%s: %q, want %q", name, got, odd)
		}
	}
	doc, err := extract.Bytes(context.Background(), "odd.html", []byte("<p>"+odd+"</p>"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Sections[0].Text; !strings.Contains(got, "\ue000\U000F0001") || !strings.Contains(got, "\ufdd0") {
		t.Errorf("html: %q lost characters", got)
	}
}
