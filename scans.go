package main

import (
	"context"
	"fmt"

	"edgechat/config"
	"edgechat/documents"
	"edgechat/documents/extract"
	"edgechat/documents/ocr"
)

// scansFor tells the document library what to do with a scanned PDF, or the scanned pages
// of a PDF with text, under settings s: read them with tesseract when text recognition is on
// and tesseract is found, else say how to have them read. It looks for tesseract each time a scan is met (on the indexing
// goroutine), so installing it needs no restart.
func scansFor(s config.Settings) func() documents.Scans {
	return func() documents.Scans {
		eng, err := ocr.Find(context.Background(), s.OCR.Tesseract)
		switch {
		case err != nil:
			return documents.Scans{Advice: "to read its scanned pages, install tesseract (text recognition): " + ocr.InstallAdvice() + "; then turn on Settings → Documents → Read scanned PDFs"}
		case !s.OCR.Enabled:
			return documents.Scans{Advice: fmt.Sprintf("turn on Settings → Documents → Read scanned PDFs with text recognition (tesseract %s is installed) to read its scanned pages, or paste the text", eng.Version)}
		}
		langs := s.OCR.Languages
		return documents.Scans{Read: func(ctx context.Context, name string, data []byte, pages []int, progress func(done, total int)) ([]extract.Section, error) {
			return eng.ReadPDF(ctx, name, data, langs, pages, progress)
		}}
	}
}

// FindOCR says which tesseract the settings would use (Settings → Documents shows it).
func (runtimeTester) FindOCR(path string) (string, error) {
	eng, err := ocr.Find(context.Background(), path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("tesseract %s (%s)", eng.Version, eng.Path), nil
}
