package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"edgechat/documents/extract"
	"edgechat/documents/ocr"
)

// recognize reads the scanned PDF at path with tesseract, or only its pages (the scanned
// pages of a PDF with text) when not nil, telling its progress on w (one line a page, and
// the time a page took at the end).
func recognize(ctx context.Context, w io.Writer, path, tesseract, langs string, pages []int) ([]extract.Section, error) {
	name := filepath.Base(path)
	eng, err := ocr.Find(ctx, tesseract)
	if err != nil {
		return nil, &extract.Unreadable{File: name, Err: err, Advice: "it has scanned pages: install tesseract to read them"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &extract.Unreadable{File: name, Err: fmt.Errorf("%w: %v", extract.ErrMissing, err)}
	}
	start := time.Now()
	read := 0
	sections, err := eng.ReadPDF(ctx, name, data, langs, pages, func(done, total int) {
		read = total
		switch {
		case done >= total:
		case pages != nil:
			fmt.Fprintf(w, "recognizing text: page %d of %d (page %d of the PDF)\n", done+1, total, pages[done])
		default:
			fmt.Fprintf(w, "recognizing text: page %d of %d\n", done+1, total)
		}
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &extract.Unreadable{File: name, Err: err, Advice: "check tesseract and its language data (tesseract --list-langs)"}
	}
	took := time.Since(start)
	noun := "pages"
	if read == 1 {
		noun = "page"
	}
	fmt.Fprintf(w, "tesseract %s read %d %s in %.1f s (%.2f s a page)\n", eng.Version, read, noun, took.Seconds(), took.Seconds()/float64(max(read, 1)))
	return sections, nil
}

// readScanned reads the scanned pages of doc (a PDF with text, at path) as extract's
// --ocr asks: with tesseract, in their pages' places; else it leaves them unread and
// returns a note that says so and how to have them read.
func readScanned(ctx context.Context, w io.Writer, doc *extract.Document, path string, useOCR bool, tesseract, langs string) (unread []int, note string, err error) {
	if len(doc.Scanned) == 0 {
		return nil, "", nil
	}
	if !useOCR {
		return doc.Scanned, fmt.Sprintf("%s: %s, not read — add --ocr to read its scanned pages with text recognition (tesseract)", filepath.Base(path), extract.DescribeScanned(doc.Scanned)), nil
	}
	sections, err := recognize(ctx, w, path, tesseract, langs, doc.Scanned)
	if err != nil {
		return nil, "", err
	}
	doc.Sections = extract.WithRecognized(doc.Sections, sections)
	return nil, "", nil
}
