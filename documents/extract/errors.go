package extract

import (
	"errors"
	"fmt"
)

// Why a file could not be read; an *Unreadable wraps one of them.
var (
	ErrUnsupported = errors.New("this kind of file is not supported (use text, Markdown, source code, PDF, DOCX, XLSX, PPTX, ODT, EPUB, RTF or HTML)")
	ErrTooBig      = errors.New("the file is too big")
	ErrNoText      = errors.New("it has no text to read")
	ErrEncrypted   = errors.New("it is protected by a password")
	ErrCorrupt     = errors.New("it is damaged or not what its name says")
	ErrMissing     = errors.New("it cannot be opened")
	ErrTooSlow     = errors.New("it takes too long to read")
)

// Unreadable says which file could not be read, why, and what the person can do.
type Unreadable struct {
	File   string
	Err    error
	Advice string
}

func (e *Unreadable) Error() string {
	msg := fmt.Sprintf("Cannot read %s: %v", e.File, e.Err)
	if e.Advice != "" {
		msg += " — " + e.Advice
	}
	return msg
}

func (e *Unreadable) Unwrap() error { return e.Err }

// advice for each reason.
var advice = map[error]string{
	ErrUnsupported: "save it as PDF, DOCX, HTML or plain text and attach that",
	ErrTooBig:      "split it into smaller files",
	ErrNoText:      "if it is a scan, run it through text recognition (OCR) first, or paste the text",
	ErrEncrypted:   "save a copy without the password and attach that",
	ErrCorrupt:     "open it in its program and save it again",
	ErrTooSlow:     "split it into smaller files",
}

// advised is an error that knows better advice than its reason's.
type advised interface {
	error
	advice() string
}

// errStylesOnly is an OpenDocument file of styles only, without a body (content.xml):
// LibreOffice's templates of page styles are so. ErrNoText, but no scan.
type errStylesOnly struct{}

func (errStylesOnly) Error() string {
	return "it has no text to read: it holds only styles (a template), no document body"
}
func (errStylesOnly) Is(target error) bool { return target == ErrNoText }
func (errStylesOnly) advice() string {
	return "attach a document written with it instead"
}

// errEmpty is a document other than a PDF with nothing written in it (a blank template,
// an empty file): ErrNoText, but no scan.
type errEmpty struct{}

func (errEmpty) Error() string        { return "it has no text to read: nothing is written in it" }
func (errEmpty) Is(target error) bool { return target == ErrNoText }
func (errEmpty) advice() string {
	return "open it to check that it is the document you meant"
}

// errDRM is an EPUB whose chapters are encrypted: ErrEncrypted, but no password opens it.
type errDRM struct{}

func (errDRM) Error() string        { return "it is protected by DRM: its chapters are encrypted" }
func (errDRM) Is(target error) bool { return target == ErrEncrypted }
func (errDRM) advice() string {
	return "export the text with the program it was bought for, or attach a copy without DRM"
}

// unreadable wraps err (which wraps one of the reasons) for file name.
func unreadable(name string, err error) error {
	var u *Unreadable
	if errors.As(err, &u) {
		return err
	}
	var a advised
	if errors.As(err, &a) {
		return &Unreadable{File: name, Err: err, Advice: a.advice()}
	}
	for reason, a := range advice {
		if errors.Is(err, reason) {
			return &Unreadable{File: name, Err: err, Advice: a}
		}
	}
	return &Unreadable{File: name, Err: fmt.Errorf("%w: %v", ErrCorrupt, err), Advice: advice[ErrCorrupt]}
}

// TooBig is the error for a file of size bytes, over MaxFileBytes.
func TooBig(name string, size int64) error {
	return &Unreadable{File: name, Err: fmt.Errorf("%w (%s; at most %s)", ErrTooBig, mbUp(size), mb(MaxFileBytes)), Advice: advice[ErrTooBig]}
}

// mbUp is n bytes in whole megabytes, rounded up, so a file just over a limit does not read
// as the limit itself.
func mbUp(n int64) string { return mb(n + 999_999) }
