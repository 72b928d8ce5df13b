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

// recognize reads the scanned PDF at path with tesseract, telling its progress on w (one
// line a page, and the time a page took at the end).
func recognize(ctx context.Context, w io.Writer, path, tesseract, langs string) (*extract.Document, error) {
	name := filepath.Base(path)
	eng, err := ocr.Find(ctx, tesseract)
	if err != nil {
		return nil, &extract.Unreadable{File: name, Err: err, Advice: "it is a scan: install tesseract to read it"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &extract.Unreadable{File: name, Err: fmt.Errorf("%w: %v", extract.ErrMissing, err)}
	}
	start := time.Now()
	pages := 0
	sections, err := eng.ReadPDF(ctx, name, data, langs, func(done, total int) {
		pages = total
		fmt.Fprintf(w, "recognizing text: %d of %d pages\n", done, total)
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &extract.Unreadable{File: name, Err: err, Advice: "check tesseract and its language data (tesseract --list-langs)"}
	}
	took := time.Since(start)
	fmt.Fprintf(w, "tesseract %s read %d pages in %.1f s (%.2f s a page)\n", eng.Version, pages, took.Seconds(), took.Seconds()/float64(max(pages, 1)))
	return &extract.Document{Format: "pdf", Sections: sections}, nil
}
