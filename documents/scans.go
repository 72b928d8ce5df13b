package documents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"edgechat/documents/extract"
	"edgechat/documents/index"
	"edgechat/reply"
)

// Scans says how the library treats a PDF that holds only images (a scan), as found when
// one is met.
type Scans struct {
	// Read recognizes the text of the scanned PDF in data (named name), page by page, or
	// of pages only, when not nil (the scanned pages of a PDF with text), reporting pages
	// done of all (of pages, then); nil leaves scans unread.
	Read func(ctx context.Context, name string, data []byte, pages []int, progress func(done, total int)) ([]extract.Section, error)
	// Advice replaces the advice of a scan that is not read: how to have it read.
	Advice string
}

// SetScans sets how the library learns what to do with scans: scans is called on the
// indexing goroutine (never the UI's) each time a scan, or a PDF with scanned pages, is
// met; nil leaves scans unread. Documents read before whose scanned pages were left unread
// are read again when next opened, in case the new Scans read them.
func (l *Library) SetScans(scans func() Scans) {
	l.mu.Lock()
	l.scans = scans
	l.scansGen++
	l.mu.Unlock()
}

// currentScans returns the library's Scans now (zero without SetScans) and the generation
// of SetScans they are from.
func (l *Library) currentScans() (Scans, int) {
	l.mu.Lock()
	scans, gen := l.scans, l.scansGen
	l.mu.Unlock()
	if scans == nil {
		return Scans{}, gen
	}
	return scans(), gen
}

// readScan reads the scanned PDF of a, which extract.File refused with errScan, as the
// library's Scans say: by text recognition, or not, with their advice.
func (l *Library) readScan(ctx context.Context, a reply.Attachment, scanErr error, status Status) (*extract.Document, error) {
	l.mu.Lock()
	scans := l.scans
	l.mu.Unlock()
	if scans == nil {
		return nil, scanErr
	}
	sc := scans()
	if sc.Read == nil {
		var u *extract.Unreadable
		if sc.Advice != "" && errors.As(scanErr, &u) {
			return nil, &extract.Unreadable{File: u.File, Err: u.Err, Advice: sc.Advice}
		}
		return nil, scanErr
	}
	data, err := os.ReadFile(a.Path)
	if err != nil {
		return nil, &extract.Unreadable{File: a.Name, Err: fmt.Errorf("%w: %v", extract.ErrMissing, err), Advice: "remove it and attach it again"}
	}
	status(fmt.Sprintf("%s is a scan: recognizing its text…", a.Name))
	sections, err := sc.Read(ctx, a.Name, data, nil, func(done, total int) {
		status(fmt.Sprintf("Recognizing text in %s: page %d of %d", a.Name, min(done+1, total), total))
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		var u *extract.Unreadable
		if errors.As(err, &u) {
			return nil, err
		}
		return nil, &extract.Unreadable{File: a.Name, Err: fmt.Errorf("it is a scan, and text recognition failed: %w", err),
			Advice: "check tesseract in Settings → Documents, or paste the text"}
	}
	return &extract.Document{Format: "pdf", Sections: sections}, nil
}

// readScannedPages recognizes the text of the scanned pages of the PDF with text of a
// (doc.Scanned), when the library's Scans read scans, and puts it in their pages' places in
// doc. It returns the pages left unread, with a note for the person that says so and how to
// have them read (text recognition is off, or failed). Only cancellation is an error.
func (l *Library) readScannedPages(ctx context.Context, a reply.Attachment, doc *extract.Document, status Status) (unread []int, note string, err error) {
	pages := doc.Scanned
	sc, _ := l.currentScans()
	if sc.Read == nil {
		return pages, unreadNote(a.Name, pages, sc.Advice), nil
	}
	data, err := os.ReadFile(a.Path)
	if err != nil {
		return pages, fmt.Sprintf("%s: %s, not read: %v — remove it and attach it again", a.Name, extract.DescribeScanned(pages), err), nil
	}
	status(fmt.Sprintf("%s: %s: recognizing text…", a.Name, extract.DescribeScanned(pages)))
	sections, err := sc.Read(ctx, a.Name, data, pages, func(done, total int) {
		i := min(done, total-1, len(pages)-1)
		status(fmt.Sprintf("Recognizing text in %s: page %d of %d (page %d of the PDF)", a.Name, i+1, total, pages[max(i, 0)]))
	})
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	switch {
	case errors.Is(err, extract.ErrNoText): // their images cannot be decoded (JBIG2): nothing to check
		why := strings.TrimPrefix(err.Error(), extract.ErrNoText.Error()+": ")
		return pages, fmt.Sprintf("%s: %s, not read: %s", a.Name, extract.DescribeScanned(pages), why), nil
	case err != nil:
		return pages, fmt.Sprintf("%s: %s, not read: text recognition failed: %v — check tesseract in Settings → Documents", a.Name, extract.DescribeScanned(pages), err), nil
	}
	doc.Sections = extract.WithRecognized(doc.Sections, sections)
	return nil, "", nil
}

// unreadNote says which pages of the PDF name are scanned images left unread, and advice:
// how to have them read.
func unreadNote(name string, pages []int, advice string) string {
	if advice == "" {
		advice = "read them with text recognition (OCR) first, or paste their text"
	}
	return fmt.Sprintf("%s: %s, not read — %s", name, extract.DescribeScanned(pages), advice)
}

// loaded is the document of a from its saved index ix, with a note on the scanned pages it
// left unread; nil when the library's Scans read them now: then a is read again.
func (l *Library) loaded(a reply.Attachment, ix *index.Index) *Doc {
	if len(ix.Unread) == 0 {
		return &Doc{Name: a.Name, Index: ix, Sections: ix.Sections}
	}
	sc, gen := l.currentScans()
	if sc.Read != nil {
		return nil
	}
	return &Doc{Name: a.Name, Index: ix, Sections: ix.Sections, Note: unreadNote(a.Name, ix.Unread, sc.Advice), scans: gen}
}
