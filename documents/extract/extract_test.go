package extract_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

func TestBytes(t *testing.T) {
	tests := []struct {
		name   string
		data   []byte
		format string
		want   []extract.Section
	}{
		{
			name: "notes.txt", data: []byte("\ufeffFirst line\r\nsecond line\r\n\r\n\r\n\r\nnext paragraph  \n"),
			format: "text",
			want:   []extract.Section{{Text: "First line\nsecond line\n\nnext paragraph"}},
		},
		{
			name: "main.go", data: []byte("package main\n\nfunc main() {}\n"), format: "code",
			want: []extract.Section{{Text: "package main\n\nfunc main() {}"}},
		},
		{
			name: "latin1.txt", data: []byte("caf\xe9 cr\xe8me"), format: "text",
			want: []extract.Section{{Text: "café crème"}},
		},
		{
			name: "utf16.txt", data: []byte{0xFF, 0xFE, 'h', 0, 'i', 0}, format: "text",
			want: []extract.Section{{Text: "hi"}},
		},
		{
			name:   "guide.md",
			data:   []byte("Intro text.\n\n# Guide\n\nRead me.\n\n## Setup\n\n```sh\n# not a heading\nmake\n```\n\nLinux\n-----\n\nUse apt.\n\n# Other\nDone.\n"),
			format: "markdown",
			want: []extract.Section{
				{Text: "Intro text."},
				{Heading: "Guide", Text: "Read me."},
				{Heading: "Guide › Setup", Text: "```sh\n# not a heading\nmake\n```"},
				{Heading: "Guide › Linux", Text: "Use apt."},
				{Heading: "Other", Text: "Done."},
			},
		},
		{
			name: "page.html",
			data: []byte(`<!DOCTYPE html><html><head><title>T</title><style>p{color:red}</style><script>var x = "hidden";</script></head>
<body><nav>Home</nav><h1>Manual</h1><p>First   paragraph
spans lines.</p><h2>Install</h2><ul><li>one</li><li>two &amp; three</li></ul><pre>a  b
c</pre></body></html>`),
			format: "html",
			want: []extract.Section{
				{Text: "Home"},
				{Heading: "Manual", Text: "First paragraph\nspans lines."},
				{Heading: "Manual › Install", Text: "one\n\ntwo & three\n\na b\nc"},
			},
		},
		{
			// Images read as their alt text in brackets, as pandoc prints them; a figure
			// with a caption reads as the caption; empty alt and script text read as nothing.
			name: "images.html",
			data: []byte(`<h1>Cats <img src="i.png" alt="(icon)"></h1><p>See<img src="a.png" alt=" a cat on a mat ">here.<img src="deco.png" alt=""><img src="_images/x.png" alt="_images/x.png"></p>` +
				`<figure><img src="b.png" alt="a chart"></figure><figure><img src="c.png" alt="hidden alt"><figcaption>Sales by year</figcaption></figure>` +
				`<script>document.write('<img alt="no">')</script><noscript><img src="p.gif" alt="pixel"></noscript>`),
			format: "html",
			want: []extract.Section{
				{Heading: "Cats [(icon)]", Text: "See[a cat on a mat]here.\n\n[a chart]\n\nSales by year"},
			},
		},
		{
			// inline markup inside a heading does not part its words (IDPF's jlreq-in-japanese.epub:
			// "使用する<span>文字</span>" read "使用する 文字"); a line break does
			name:   "headings.html",
			data:   []byte(`<h1>Edge<em>Chat</em> <a href="#x">guide</a></h1><p>Text.</p><h2>日本語組版に使用する<span class="index">文字</span><br>Part<sup>2</sup></h2><p>More.</p>`),
			format: "html",
			want: []extract.Section{
				{Heading: "EdgeChat guide", Text: "Text."},
				{Heading: "EdgeChat guide › 日本語組版に使用する文字 Part2", Text: "More."},
			},
		},
		{
			// an XHTML page's XML declaration gives its encoding, UTF-8 by default: HTML's
			// rules took a page whose first 1,024 bytes are ASCII for Windows-1252 (Project
			// Gutenberg's EPUBs in pymupdf's test_3687.epub: "Adamsâ€™")
			name:   "gutenberg.xhtml",
			data:   []byte("<?xml version='1.0' encoding='utf-8'?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>T</title><style>" + strings.Repeat("p{}", 400) + "</style></head><body><p>Adams’ “balloon”</p></body></html>"),
			format: "html",
			want:   []extract.Section{{Text: "Adams’ “balloon”"}},
		},
		{
			name:   "latin1.xhtml",
			data:   []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\" ?><html><body><p>caf\xe9</p></body></html>"),
			format: "html",
			want:   []extract.Section{{Text: "café"}},
		},
		{
			name: "letter.docx",
			data: testdocs.DOCX([]testdocs.Para{
				{Text: "Preface."}, {Style: "Title", Text: "Letter"}, {Text: "Dear reader,\nhello."},
				{Style: "Heading2", Text: "Terms"}, {Text: "Pay in 30 days."},
			}),
			format: "docx",
			want: []extract.Section{
				{Text: "Preface."},
				{Heading: "Letter", Text: "Dear reader,\nhello."},
				{Heading: "Letter › Terms", Text: "Pay in 30 days."},
			},
		},
		{
			name: "report.pdf", data: testdocs.PDF([]string{"Page one says hello.", "Page two says goodbye."}),
			format: "pdf",
			want:   []extract.Section{{Page: 1, Text: "Page one says hello."}, {Page: 2, Text: "Page two says goodbye."}},
		},
		{
			name: "restricted.pdf", data: testdocs.OwnerProtectedPDF([]string{"Anyone may read this.", "Nobody may copy it."}),
			format: "pdf",
			want:   []extract.Section{{Page: 1, Text: "Anyone may read this."}, {Page: 2, Text: "Nobody may copy it."}},
		},
		{
			name: "noextension", data: []byte("just text"), format: "text",
			want: []extract.Section{{Text: "just text"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := extract.Bytes(context.Background(), tt.name, tt.data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Format != tt.format {
				t.Errorf("format %q, want %q", doc.Format, tt.format)
			}
			if diff := cmp.Diff(tt.want, doc.Sections); diff != "" {
				t.Errorf("sections (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPDFProgressAndPages(t *testing.T) {
	pages := testdocs.LongPages(12, 7)
	var calls, last int
	doc, err := extract.Bytes(context.Background(), "long.pdf", testdocs.PDF(pages), func(done, total int) {
		calls++
		if total != 12 || done != last+1 {
			t.Errorf("progress(%d, %d) after %d", done, total, last)
		}
		last = done
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 12 || len(doc.Sections) != 12 {
		t.Fatalf("%d progress calls, %d sections; want 12 and 12", calls, len(doc.Sections))
	}
	got := strings.Join(strings.Fields(doc.Sections[6].Text), " ")
	if doc.Sections[6].Page != 7 || !strings.Contains(got, testdocs.Needle) {
		t.Errorf("page %d does not hold the needle: %.200q", doc.Sections[6].Page, got)
	}
}

func TestUnreadable(t *testing.T) {
	pdf := testdocs.PDF([]string{"fine"})
	docx := testdocs.DOCX([]testdocs.Para{{Text: "fine"}})
	tests := []struct {
		name string
		data []byte
		want error
		says string
	}{
		{"scan.pdf", testdocs.ScannedPDF(3), extract.ErrNoText, "looks like a scan"},
		{"locked.pdf", testdocs.EncryptedPDF(), extract.ErrEncrypted, "Cannot read locked.pdf: it is protected by a password: it asks for a password to be opened — save a copy"},
		{"cut.pdf", pdf[:len(pdf)/2], extract.ErrCorrupt, "damaged: its end is cut off"},
		{"garbage.pdf", []byte("%PDF-1.4\nnot really\n%%EOF\n"), extract.ErrCorrupt, "damaged"},
		{"cut.docx", docx[:len(docx)/2], extract.ErrCorrupt, "damaged: its end is cut off"},
		{"locked.docx", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...), extract.ErrEncrypted, "password"},
		{"photo.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), extract.ErrUnsupported, "not supported"},
		{"empty.txt", []byte(" \n\n "), extract.ErrNoText, "no text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := extract.Bytes(context.Background(), tt.name, tt.data, nil)
			checkUnreadable(t, err, tt.name, tt.want, tt.says)
		})
	}
	t.Run("too big", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "huge.txt")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, extract.MaxFileBytes+1); err != nil { // sparse: costs no disk
			t.Fatal(err)
		}
		_, err := extract.File(context.Background(), path, nil)
		checkUnreadable(t, err, "huge.txt", extract.ErrTooBig, "too big")
	})
	t.Run("missing", func(t *testing.T) {
		_, err := extract.File(context.Background(), filepath.Join(t.TempDir(), "gone.pdf"), nil)
		checkUnreadable(t, err, "gone.pdf", extract.ErrMissing, "cannot be opened: there is no such file")
	})
}

// TestEmptyIsNoScan: a document other than a PDF with nothing in it (LibreOffice's blank
// report templates, an empty text file) has no text, without the advice to run text
// recognition on a scan, which it was given.
func TestEmptyIsNoScan(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty.txt":  []byte(" \n\n "),
		"stl-01.ott": odf("application/vnd.oasis.opendocument.text-template", `<office:text><text:p/></office:text>`),
	} {
		_, err := extract.Bytes(context.Background(), name, data, nil)
		checkUnreadable(t, err, name, extract.ErrNoText, "nothing is written in it")
		if strings.Contains(err.Error(), "scan") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func checkUnreadable(t *testing.T, err error, file string, want error, says string) {
	t.Helper()
	var u *extract.Unreadable
	if !errors.As(err, &u) || !errors.Is(err, want) {
		t.Fatalf("error %v (%T), want an *Unreadable wrapping %v", err, err, want)
	}
	if u.File != file || !strings.Contains(err.Error(), says) || u.Advice == "" {
		t.Errorf("message %q: want the file %q, %q and advice", err, file, says)
	}
}

func FuzzBytes(f *testing.F) {
	f.Add("a.pdf", testdocs.PDF([]string{"hello"}))
	f.Add("a.pdf", bytes.TrimPrefix(testdocs.PDF([]string{"hello"}), []byte("%PDF-"))) // a broken header (pdftext.headerless)
	f.Add("a.docx", testdocs.DOCX([]testdocs.Para{{Style: "Heading1", Text: "H"}, {Text: "x"}}))
	f.Add("a.odt", odf("application/vnd.oasis.opendocument.text", `<office:document-content><office:body><office:text><text:p>x</text:p></office:text></office:body></office:document-content>`))
	f.Add("a.rtf", []byte(`{\rtf1\ansi{\stylesheet{\s1 heading 1;}}\pard\s1 T\par\pard x\'e9\u8212?{\*\x y}\cell\row\par}`))
	f.Add("a.rtf", []byte(`{\rtf1\ansi a{\pict\bin4 {\}x}b\bin99`))
	f.Add("a.rtf", []byte(`{\rtf1\ansi\uc1 a{\footnote\ftnalt n\par m{\footnote o}}{\v h\plain p}{\listtext\u8226 }b\par}`))
	f.Add("a.rtf", []byte(`{\rtf1\ansi\deff1{\fonttbl{\f1\fcharset128 G;}{\f-2\cpg99999 X;}}\pard{\f1\'83\'5d\'83}\f-2\'ff\plain\'83\par}`))
	f.Add("a.html", []byte("<h1>x</h1><p>y</p>"))
	f.Add("a.xhtml", []byte("\ufeff <?xml version='1.0' encoding = \"utf-16\"?><p>y’</p>"))
	f.Add("a.xhtml", []byte("<!DOCTYPE html [ <!ENTITY e \"]>\"> ] ><p>&e;</p>"))
	f.Add("a.html", []byte("<style>/* x */ ol.a#b, li { list-style: upper-roman !important } @media x { ul { list-style-type: decimal } }</style><ol class=\"a\" id=\"b\"><li style=\"list-style-type:none\">x<li>y</ol><ul style=\"list-style:decimal-leading-zero\"><li>z</ul>"))
	f.Add("a.html", []byte(`<ol reversed start="-2147483648" type="i"><li value="x">a<ol><li value="4000">b</ol></li><li>c</ol><ul><li>d</ul></ol></ol>`))
	f.Add("a.md", []byte("# x\n\ny\n===\n"))
	f.Add("a.txt", []byte("text"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		checkReadOrRefused(t, name, data)
	})
}

// checkReadOrRefused reads data as the file name: a fuzz input is either read into sections
// or refused with an *Unreadable, never anything else.
func checkReadOrRefused(t *testing.T, name string, data []byte) {
	t.Helper()
	doc, err := extract.Bytes(context.Background(), name, data, nil)
	if err != nil {
		var u *extract.Unreadable
		if !errors.As(err, &u) {
			t.Fatalf("error %v is not an *Unreadable", err)
		}
		return
	}
	if len(doc.Sections) == 0 {
		t.Fatal("a document without sections and without an error")
	}
}
