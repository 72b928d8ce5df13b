package extract

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// readPDF takes the text of each page of a PDF, one section per page. A PDF whose pages
// carry no text at all (a scan) is ErrNoText; one that needs a password is ErrEncrypted.
func readPDF(data []byte, progress Progress) (doc *Document, err error) {
	defer func() {
		if p := recover(); p != nil { // the parser panics on some damaged files
			doc, err = nil, fmt.Errorf("%w: %v", ErrCorrupt, p)
		}
	}()
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		return nil, fmt.Errorf("%w: it does not start like a PDF", ErrCorrupt)
	}
	if bytes.HasPrefix(data, []byte("%PDF-2.")) {
		// The reader checks for 1.x; the text operators of 2.0 files are the same.
		data = bytes.Clone(data)
		copy(data, "%PDF-1.7")
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, pdfError(err)
	}
	pages, err := pageList(r)
	if err != nil {
		return nil, err
	}
	n := len(pages)
	doc = &Document{Format: "pdf"}
	fonts := map[string]*pdf.Font{}
	size := 0
	for i := 1; i <= n; i++ {
		p := pages[i-1]
		for _, name := range p.Fonts() {
			if _, ok := fonts[name]; !ok {
				f := p.Font(name)
				fonts[name] = &f
			}
		}
		text, err := p.GetPlainText(fonts)
		if err != nil {
			// One bad page does not lose the others: keep going, say so in the text.
			text = fmt.Sprintf("[page %d could not be read: %v]", i, err)
		}
		size += len(text)
		if size > MaxTextBytes {
			return nil, fmt.Errorf("%w: more than %d MB of text", ErrTooBig, MaxTextBytes>>20)
		}
		doc.Sections = append(doc.Sections, Section{Page: i, Text: text})
		if progress != nil {
			progress(i, n)
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: it has no pages", ErrCorrupt)
	}
	if !hasLetters(doc.Sections) {
		return nil, fmt.Errorf("%w: its %d pages hold only images — it looks like a scan", ErrNoText, n)
	}
	return doc, nil
}

// Bounds of a page tree: deeper or larger trees are damaged or hostile (a cycle of Kids
// or Parent links would make the reader's own walk loop for ever).
const (
	maxTreeDepth = 64
	maxTreeNodes = 200_000
)

// pageList walks the page tree itself, within bounds, instead of the reader's Page(i),
// and checks that each page's chain of parents (where inherited resources are looked up)
// ends.
func pageList(r *pdf.Reader) ([]pdf.Page, error) {
	var out []pdf.Page
	visits := 0
	errCycle := fmt.Errorf("%w: its page tree loops or is too deep", ErrCorrupt)
	var walk func(v pdf.Value, depth int) error
	walk = func(v pdf.Value, depth int) error {
		visits++
		if depth > maxTreeDepth || visits > maxTreeNodes {
			return errCycle
		}
		kids := v.Key("Kids")
		if v.Key("Type").Name() == "Page" || kids.Kind() != pdf.Array {
			parents := 0
			for p := v.Key("Parent"); !p.IsNull(); p = p.Key("Parent") {
				if parents++; parents > maxTreeDepth {
					return errCycle
				}
			}
			out = append(out, pdf.Page{V: v})
			return nil
		}
		for i := range kids.Len() {
			if err := walk(kids.Index(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	root := r.Trailer().Key("Root").Key("Pages")
	if root.IsNull() {
		return nil, fmt.Errorf("%w: it has no page tree", ErrCorrupt)
	}
	if err := walk(root, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// pdfError maps the reader's errors to the reasons a person can act on.
func pdfError(err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, pdf.ErrInvalidPassword), strings.Contains(msg, "encrypt"):
		return fmt.Errorf("%w (%v)", ErrEncrypted, err)
	default:
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
}

func hasLetters(secs []Section) bool {
	for _, s := range secs {
		for _, r := range s.Text {
			if r > ' ' && r != 0xFFFD {
				return true
			}
		}
	}
	return false
}
