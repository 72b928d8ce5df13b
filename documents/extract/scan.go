package extract

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"edgechat/documents/extract/pdftext"
)

// errScan is a PDF whose pages hold no text, only images or drawings: ErrNoText, and what
// text recognition (OCR) may read.
type errScan struct{ pages int }

func (e errScan) Error() string {
	return fmt.Sprintf("%v: its %d pages hold no text, only images or drawings — it looks like a scan or a drawing", ErrNoText, e.pages)
}
func (errScan) Is(target error) bool { return target == ErrNoText }

// Scan says the error is a scan's, for callers that do not import this package.
func (errScan) Scan() bool { return true }

// IsScan reports whether err says a PDF holds no text, only images or drawings (a scan).
func IsScan(err error) bool { return errors.As(err, new(errScan)) }

// The rule for a scanned page in a PDF with text (ScannedPage).
const (
	// ScanCover is the share of the page images must cover: most of it.
	ScanCover = 0.5
	// ScanLetters bounds the letters and digits of a scanned page's own text: a page number,
	// a stamp or a header a program added ("CONFIDENTIAL", "Page 12 of 40") are fewer.
	ScanLetters = 40
)

// ScannedPage reports whether a PDF page whose text is text, with images (of a resolution
// that could hold text) covering cover of it (0–1), is a scanned page: images cover at least
// ScanCover of it, and its text holds fewer than ScanLetters letters and digits.
func ScannedPage(text string, cover float64) bool {
	if cover < ScanCover {
		return false
	}
	n := 0
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if n++; n >= ScanLetters {
				return false
			}
		}
	}
	return true
}

// Image is one image a PDF page draws, ready for a text recognizer (pdftext.Image).
type Image = pdftext.Image

// PDFImages hands each image the pages of the PDF in data draw (only pages', when not nil)
// to each, page by page in the order drawn, within the budgets (MaxPartBytes and the others); the time each takes
// does not count against Deadline, the reading's own time does, and MaxUnpackedBytes
// counts from one image to the next (a scan's pages unpack to megabytes each). An error from each stops
// the reading and is returned; errors a person should see are *Unreadable.
func PDFImages(ctx context.Context, name string, data []byte, pages []int, each func(Image) error) error {
	if int64(len(data)) > MaxFileBytes {
		return TooBig(name, int64(len(data)))
	}
	// The deadline is kept here, less the time spent in each.
	b := newBudgetUntil(ctx, time.Now().AddDate(1, 0, 0))
	defer b.stop()
	start, away := time.Now(), time.Duration(0)
	var eachErr error
	opt := pdftext.Options{Context: b.ctx, Limit: b.limit, MaxPages: MaxPages, MaxDepth: MaxDepth}
	if pages != nil {
		opt.ImagePage = func(page int) bool { return slices.Contains(pages, page) }
	}
	_, err := pdftext.ReadImages(data, opt, func(img Image) error {
		if time.Since(start)-away > Deadline {
			return errDeadline
		}
		t := time.Now()
		eachErr = each(img)
		away += time.Since(t)
		b.unpacked = 0
		return eachErr
	})
	switch {
	case err == nil:
		return nil
	case eachErr == errDeadline:
		return unreadable(name, eachErr)
	case eachErr != nil && errors.Is(err, eachErr):
		return eachErr
	}
	return unreadable(name, pdfError(b, err))
}

// WithRecognized returns a PDF's sections (one a page, in page order) with the text
// recognized on its scanned pages put in those pages' places: a page's own short text (its
// number, a stamp) follows what was recognized on it.
func WithRecognized(sections, recognized []Section) []Section {
	out := make([]Section, 0, len(sections)+len(recognized))
	i := 0
	for _, r := range recognized {
		for ; i < len(sections) && sections[i].Page < r.Page; i++ {
			out = append(out, sections[i])
		}
		if i < len(sections) && sections[i].Page == r.Page {
			r.Text += "\n\n" + sections[i].Text
			i++
		}
		out = append(out, r)
	}
	return append(out, sections[i:]...)
}

// DescribeScanned is "page 4 is a scanned image", "2 pages (2 and 4) are scanned images".
func DescribeScanned(pages []int) string {
	if len(pages) == 1 {
		return fmt.Sprintf("page %d is a scanned image", pages[0])
	}
	const shown = 8
	nums := make([]string, 0, shown)
	for _, p := range pages[:min(len(pages), shown)] {
		nums = append(nums, strconv.Itoa(p))
	}
	list := strings.Join(nums, ", ") + ", …"
	if len(pages) <= shown {
		list = strings.Join(nums[:len(nums)-1], ", ") + " and " + nums[len(nums)-1]
	}
	return fmt.Sprintf("%d pages (%s) are scanned images", len(pages), list)
}
