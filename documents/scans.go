package documents

import (
	"context"
	"errors"
	"fmt"
	"os"

	"edgechat/documents/extract"
	"edgechat/reply"
)

// Scans says how the library treats a PDF that holds only images (a scan), as found when
// one is met.
type Scans struct {
	// Read recognizes the text of the scanned PDF in data (named name), page by page,
	// reporting pages done of all; nil leaves scans unread.
	Read func(ctx context.Context, name string, data []byte, progress func(done, total int)) ([]extract.Section, error)
	// Advice replaces the advice of a scan that is not read: how to have it read.
	Advice string
}

// SetScans sets how the library learns what to do with scans: scans is called on the
// indexing goroutine (never the UI's) each time a scan is met; nil leaves scans unread.
func (l *Library) SetScans(scans func() Scans) {
	l.mu.Lock()
	l.scans = scans
	l.mu.Unlock()
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
	sections, err := sc.Read(ctx, a.Name, data, func(done, total int) {
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
