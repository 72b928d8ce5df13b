// Package extract turns a document file (plain text, Markdown, source code, PDF, DOCX, XLSX, PPTX,
// OpenDocument, EPUB, RTF, HTML) into plain-text sections that remember where they came
// from: a PDF page or the heading above them. It runs no external program and needs no network.
package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Section is a run of text from one place in a document.
type Section struct {
	// Page is the 1-based PDF page, 0 for formats without pages.
	Page int `json:"page,omitempty"`
	// Heading is the path of headings above the text ("Setup › Linux"), "" when none.
	Heading string `json:"heading,omitempty"`
	Text    string `json:"text"`
}

// Document is the text of one file.
type Document struct {
	// Format is "pdf", "docx", "xlsx", "pptx", "odf" (ODT, ODS, ODP), "epub", "rtf", "html", "markdown",
	// "code" or "text".
	Format   string
	Sections []Section
	// Scanned are the pages of a PDF with text that hold no text of their own but an image
	// as big as the page (scanned pages: ScannedPage), 1-based; text recognition may read
	// them.
	Scanned []int
}

// Len is the number of bytes of text.
func (d *Document) Len() int {
	n := 0
	for _, s := range d.Sections {
		n += len(s.Text)
	}
	return n
}

// Progress is told how far extraction got (e.g. pages read of all pages); it may be nil.
type Progress func(done, total int)

// File extracts the text of the file at path, choosing the format by its extension (and
// its first bytes when the extension says nothing), within the budgets (see MaxFileBytes
// and the limits beside it) and ctx. Errors a person should see are *Unreadable.
func File(ctx context.Context, path string, progress Progress) (*Document, error) {
	name := filepath.Base(path)
	st, err := os.Stat(path)
	if err != nil {
		// say why: a person who typed the path needs to know it is not there
		why := err.Error()
		var pe *fs.PathError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			why = "there is no such file"
		case errors.As(err, &pe):
			why = pe.Err.Error() // the path is the person's own
		}
		return nil, &Unreadable{File: name, Err: fmt.Errorf("%w: %s", ErrMissing, why), Advice: "check where it is and attach it again"}
	}
	if st.IsDir() {
		return nil, &Unreadable{File: name, Err: ErrUnsupported, Advice: "attach the files inside the folder"}
	}
	if st.Size() > MaxFileBytes {
		return nil, TooBig(name, st.Size())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Unreadable{File: name, Err: fmt.Errorf("%w: %v", ErrMissing, err), Advice: "check that you can open it"}
	}
	return read(ctx, name, data, true, progress)
}

// Bytes extracts the text of a file named name whose contents are data. It keeps no
// reference to data.
func Bytes(ctx context.Context, name string, data []byte, progress Progress) (*Document, error) {
	return read(ctx, name, data, false, progress)
}

// read extracts data's text; owned says data is not used elsewhere, so text may share its
// memory instead of copying it.
func read(ctx context.Context, name string, data []byte, owned bool, progress Progress) (*Document, error) {
	if int64(len(data)) > MaxFileBytes {
		return nil, TooBig(name, int64(len(data)))
	}
	b := newBudget(ctx)
	defer b.stop()
	b.owned = owned
	var doc *Document
	var err error
	format := FormatOf(name, data)
	switch format {
	case "pdf":
		doc, err = readPDF(b, data, progress)
	case "docx":
		doc, err = readDOCX(b, data)
	case "odf":
		doc, err = readODF(b, data)
	case "xlsx":
		doc, err = readXLSX(b, data)
	case "pptx":
		doc, err = readPPTX(b, data)
	case "epub":
		doc, err = readEPUB(b, data)
	case "rtf":
		doc, err = readRTF(b, data)
	case "html":
		doc, err = readHTML(b, data)
	case "markdown":
		doc, err = readMarkdown(b, data)
	case "code", "text":
		doc, err = readText(b, data, format)
	default:
		err = ErrUnsupported
	}
	if err == nil {
		err = b.alive()
	}
	if err != nil {
		return nil, unreadable(name, err)
	}
	doc.Sections = tidy(doc.Sections)
	if len(doc.Sections) == 0 {
		if format != "pdf" {
			return nil, unreadable(name, errEmpty{}) // not a scan: the OCR advice is a PDF's
		}
		return nil, unreadable(name, ErrNoText)
	}
	return doc, nil
}

// Extensions by format; anything else is sniffed.
var formats = map[string]string{
	".pdf": "pdf", ".docx": "docx", ".docm": "docx", ".dotx": "docx", ".dotm": "docx",
	".xlsx": "xlsx", ".xlsm": "xlsx", ".xltx": "xlsx", ".xltm": "xlsx",
	".pptx": "pptx", ".pptm": "pptx", ".ppsx": "pptx", ".ppsm": "pptx", ".potx": "pptx", ".potm": "pptx", ".odt": "odf", ".ods": "odf", ".odp": "odf", ".ott": "odf", ".ots": "odf", ".otp": "odf",
	".epub": "epub", ".rtf": "rtf", ".html": "html", ".htm": "html", ".xhtml": "html",
	".md": "markdown", ".markdown": "markdown", ".mdown": "markdown",
	".txt": "text", ".text": "text", ".log": "text", ".csv": "text", ".tsv": "text",
	".json": "text", ".yaml": "text", ".yml": "text", ".toml": "text", ".ini": "text",
	".cfg": "text", ".conf": "text", ".xml": "text", ".rst": "text", ".tex": "text",
	".srt": "text", ".vtt": "text",
	".go": "code", ".py": "code", ".js": "code", ".mjs": "code", ".ts": "code", ".tsx": "code",
	".jsx": "code", ".c": "code", ".h": "code", ".cc": "code", ".cpp": "code", ".hpp": "code",
	".cs": "code", ".java": "code", ".kt": "code", ".swift": "code", ".rs": "code",
	".rb": "code", ".php": "code", ".sh": "code", ".bash": "code", ".ps1": "code",
	".sql": "code", ".lua": "code", ".r": "code", ".scala": "code", ".zig": "code",
	".dart": "code", ".m": "code", ".pl": "code", ".css": "code", ".scss": "code",
	".vue": "code", ".svelte": "code", ".proto": "code", ".mk": "code", ".cmake": "code",
	".dockerfile": "code", ".gradle": "code", ".jl": "code", ".ex": "code", ".exs": "code",
	".erl": "code", ".hs": "code", ".ml": "code", ".fs": "code", ".clj": "code", ".bat": "code",
}

// Extensions are the file name endings Extract reads by their name, sorted: what a file
// dialog offers. Files with other names are read when their bytes say what they are.
func Extensions() []string {
	exts := make([]string, 0, len(formats))
	for ext := range formats {
		exts = append(exts, ext)
	}
	slices.Sort(exts)
	return exts
}

// Names Extract accepts as they are, without an extension.
var codeNames = map[string]bool{"makefile": true, "dockerfile": true, "readme": true, "license": true}

// FormatOf names the format Extract would read data as, or "" when it has none for it.
func FormatOf(name string, data []byte) string {
	ext := strings.ToLower(filepath.Ext(name))
	if f, ok := formats[ext]; ok {
		// A document saved under another kind's name ("Notes.rtf" that Word wrote as DOCX)
		// is read as what its bytes say it is, as the programs that made it open it.
		if c := byContent(data); c != "" && c != f && declares(f) && !(zipped[c] && zipped[f]) {
			return c
		}
		return f
	}
	if codeNames[strings.ToLower(name)] {
		return "text"
	}
	if c := byContent(data); c != "" {
		return c
	}
	head := data[:min(len(data), 8192)]
	if looksHTML(head) {
		return "html"
	}
	if isText(head) {
		return "text"
	}
	return ""
}

// zipped are the formats whose files are zip packages. Between two of them the name
// decides: which package a zip holds is its reader's to find out.
var zipped = map[string]bool{"docx": true, "xlsx": true, "pptx": true, "odf": true, "epub": true}

// declares reports whether files of format f start with bytes that say what they are.
func declares(f string) bool { return f == "pdf" || f == "rtf" || zipped[f] }

// byContent is the document format data's first bytes declare, or "" when they declare none.
func byContent(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return "pdf"
	case bytes.HasPrefix(data, []byte(`{\rtf`)):
		return "rtf"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) && bytes.Contains(data[:min(len(data), 4096)], []byte("word/")):
		return "docx"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) && bytes.Contains(data[:min(len(data), 200)], []byte("mimetypeapplication/epub+zip")):
		return "epub"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) && bytes.Contains(data[:min(len(data), 200)], []byte("mimetypeapplication/vnd.oasis.opendocument.")):
		return "odf"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) && bytes.Contains(data[:min(len(data), 4096)], []byte("xl/")):
		return "xlsx"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) && bytes.Contains(data[:min(len(data), 4096)], []byte("ppt/")):
		return "pptx"
	}
	return ""
}

func looksHTML(head []byte) bool {
	h := bytes.ToLower(bytes.TrimSpace(head))
	return bytes.HasPrefix(h, []byte("<!doctype html")) || bytes.HasPrefix(h, []byte("<html"))
}

// isText reports whether head looks like text: no NUL bytes unless it is UTF-16 with a
// byte-order mark.
func isText(head []byte) bool {
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return true
	}
	return len(head) > 0 && bytes.IndexByte(head, 0) < 0
}
