package ocr

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"edgechat/documents/extract"
)

// Progress is told, as each page is begun, the pages recognized of all (done < total), and
// total of total at the end.
type Progress func(done, total int)

// ReadPDF recognizes the text of a scanned PDF (data, named name), page by page: one
// section per page that holds text, its Page kept. With pages, only those pages (1-based,
// in order) are read: the scanned pages of a PDF with text (extract.Document.Scanned); then
// a reading that finds no text is no error, their pages being pictures. A page's images
// that cannot be decoded are left out; when no page gives text it says why.
func (e Engine) ReadPDF(ctx context.Context, name string, data []byte, langs string, pages []int, progress Progress) ([]extract.Section, error) {
	if langs == "" {
		langs = "eng"
	}
	if err := e.CheckLanguages(ctx, langs); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = func(int, int) {}
	}
	var (
		sections []extract.Section
		page     int
		text     strings.Builder
		bad      error // the first image that cannot be read
		images   int
		total    = len(pages)
	)
	flush := func() {
		if t := strings.TrimSpace(text.String()); t != "" {
			sections = append(sections, extract.Section{Page: page, Text: t})
		}
		text.Reset()
	}
	err := extract.PDFImages(ctx, name, data, pages, func(img extract.Image) error {
		if img.Page != page {
			flush()
			page = img.Page
			if pages == nil {
				total = img.Pages
				progress(page-1, total)
			} else {
				progress(slices.Index(pages, page), total)
			}
		}
		images++
		if img.Err != nil {
			if bad == nil {
				bad = fmt.Errorf("page %d: %w", img.Page, img.Err)
			}
			return nil
		}
		got, err := e.Recognize(ctx, img.Data, img.Format, img.DPI, langs)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("tesseract failed on page %d of %s: %w", img.Page, name, err)
		}
		if text.Len() > 0 {
			text.WriteString("\n\n")
		}
		text.WriteString(got)
		return nil
	})
	if err != nil {
		return nil, err
	}
	flush()
	progress(total, total)
	if len(sections) == 0 {
		switch {
		case bad != nil:
			return nil, fmt.Errorf("%w: text recognition cannot read its images (%v)", extract.ErrNoText, bad)
		case pages != nil:
			return nil, nil
		case images == 0:
			return nil, fmt.Errorf("%w: its pages hold no images to recognize (drawings only)", extract.ErrNoText)
		}
		return nil, fmt.Errorf("%w: text recognition found no text on its pages", extract.ErrNoText)
	}
	return sections, nil
}

// IsInstallProblem reports whether err says tesseract or its language data is missing.
func IsInstallProblem(err error) bool {
	return errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrNoLanguage)
}
