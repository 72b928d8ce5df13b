package extract

import (
	"context"
	"fmt"
	"io"
	"time"
)

// The budgets of one document: a file over one is refused with an *Unreadable that says
// which, and nothing else is lost. Sizes are in decimal megabytes, as the README gives them.
const (
	// MaxFileBytes is the largest file read (100 MB).
	MaxFileBytes = 100_000_000
	// MaxTextBytes bounds the text taken from one file (50 MB): a small file can unpack to
	// far more (a PDF's streams, a DOCX's zip parts).
	MaxTextBytes = 50_000_000
	// MaxUnpackedBytes bounds everything unpacked from one file: all its PDF streams or zip
	// parts together (500 MB).
	MaxUnpackedBytes = 500_000_000
	// MaxPartBytes bounds one PDF stream or one zip part unpacked (100 MB).
	MaxPartBytes = 100_000_000
	// MaxPages bounds a PDF's pages, counted as listed (a page listed twice counts twice).
	MaxPages = 20_000
	// MaxZipEntries bounds the files packed in a DOCX, XLSX, PPTX, ODT or EPUB (10,000).
	MaxZipEntries = 10_000
	// MaxDepth bounds nesting: PDF arrays and dictionaries and page tree levels, XML
	// elements (100).
	MaxDepth = 100
	// Deadline is the time one file may take to read (2 minutes); the caller's context can
	// end it sooner.
	Deadline = 2 * time.Minute
)

// mb writes a byte count as the README does ("500 MB").
func mb(n int64) string { return fmt.Sprintf("%d MB", n/1_000_000) }

// budget is what is left of one document's budgets while it is read. It is used by one
// goroutine.
type budget struct {
	// ctx ends at the deadline or with the caller's context, parent.
	ctx, parent context.Context
	stop        context.CancelFunc
	deadline    time.Time
	unpacked    int64 // bytes unpacked so far, all parts
	text        int64 // bytes of text so far
	// owned says the file's bytes are the reader's alone: text may share their memory.
	owned bool
}

// newBudget starts a document's budgets: its Deadline from now, and ctx's end.
func newBudget(ctx context.Context) *budget { return newBudgetUntil(ctx, time.Now().Add(Deadline)) }

func newBudgetUntil(parent context.Context, deadline time.Time) *budget {
	ctx, stop := context.WithDeadline(parent, deadline)
	return &budget{ctx: ctx, parent: parent, stop: stop, deadline: deadline}
}

// errDeadline is what a read past its deadline returns.
var errDeadline = fmt.Errorf("%w: reading it took longer than %v", ErrTooSlow, Deadline)

// alive returns the reason to stop: the deadline passed, or the caller's context ended
// (cancelled, or its own deadline passed, which is not the file's fault).
func (b *budget) alive() error {
	if err := b.parent.Err(); err != nil {
		return err
	}
	if b.ctx.Err() != nil || time.Now().After(b.deadline) {
		return errDeadline
	}
	return nil
}

// addText counts n more bytes of text.
func (b *budget) addText(n int) error {
	b.text += int64(n)
	if b.text > MaxTextBytes {
		return fmt.Errorf("%w: it holds more than %s of text", ErrTooBig, mb(MaxTextBytes))
	}
	return nil
}

// limit wraps r, one part of the document (what names it in errors), so that reading it
// counts against the part's and the document's unpacked budgets and stops when the
// context is done.
func (b *budget) limit(r io.Reader, what string) io.Reader {
	return &limitedReader{r: r, b: b, what: what}
}

type limitedReader struct {
	r    io.Reader
	b    *budget
	what string
	n    int64
	err  error
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if err := l.b.alive(); err != nil {
		l.err = err
		return 0, err
	}
	if len(p) > 1<<20 {
		p = p[:1<<20] // check the context at least every megabyte
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	l.b.unpacked += int64(n)
	switch {
	case l.n > MaxPartBytes:
		l.err = fmt.Errorf("%w: %s unpacks to more than %s", ErrTooBig, l.what, mb(MaxPartBytes))
	case l.b.unpacked > MaxUnpackedBytes:
		l.err = fmt.Errorf("%w: it unpacks to more than %s", ErrTooBig, mb(MaxUnpackedBytes))
	}
	if l.err != nil {
		return 0, l.err
	}
	return n, err
}
