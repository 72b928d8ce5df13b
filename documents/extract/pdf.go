package extract

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"edgechat/documents/extract/pdftext"
)

// readPDF takes the text of each page of a PDF, one section per page, within the budgets.
// A PDF whose pages carry no text at all (a scan) is ErrNoText; one that needs a password
// is ErrEncrypted.
func readPDF(b *budget, data []byte, progress Progress) (*Document, error) {
	pages, err := pdftext.Read(data, pdftext.Options{
		Context:  b.ctx,
		Limit:    b.limit,
		Progress: progress,
		MaxPages: MaxPages,
		MaxDepth: MaxDepth,
		Text:     b.addText,
	})
	if err != nil {
		err = pdfError(b, err)
		if errors.Is(err, ErrCorrupt) && cutOff("pdf", data) {
			return nil, errCutOff{}
		}
		return nil, err
	}
	doc := &Document{Format: "pdf", Sections: make([]Section, len(pages))}
	letters := false
	var bad error
	for i, p := range pages {
		text := p.Text
		if p.Err != nil {
			// One bad page does not lose the others: keep going, say so in the text.
			text = fmt.Sprintf("[page %d could not be read: %v]", i+1, p.Err)
			bad = cmp.Or(bad, p.Err)
		} else {
			letters = letters || hasLetters(p.Text)
			if ScannedPage(p.Text, p.ImageCover) {
				doc.Scanned = append(doc.Scanned, i+1)
			}
		}
		doc.Sections[i] = Section{Page: i + 1, Text: text}
	}
	switch {
	case !letters && bad != nil:
		if cutOff("pdf", data) {
			return nil, errCutOff{}
		}
		return nil, fmt.Errorf("%w: %s", ErrCorrupt, detail(bad, pdftext.ErrDamaged))
	case !letters:
		return nil, errScan{len(pages)}
	}
	return doc, nil
}

// pdfError maps pdftext's errors to the reasons a person can act on.
func pdfError(b *budget, err error) error {
	if stop := b.alive(); stop != nil {
		return stop
	}
	switch {
	case errors.Is(err, pdftext.ErrEncrypted):
		// the same words: said once
		if rest, found := strings.CutPrefix(err.Error(), pdftext.ErrEncrypted.Error()); found {
			return fmt.Errorf("%w%s", ErrEncrypted, rest)
		}
		return fmt.Errorf("%w (%v)", ErrEncrypted, err)
	case errors.Is(err, pdftext.ErrTooBig):
		return fmt.Errorf("%w: %s", ErrTooBig, detail(err, pdftext.ErrTooBig))
	case errors.Is(err, pdftext.ErrDamaged):
		return fmt.Errorf("%w: %s", ErrCorrupt, detail(err, pdftext.ErrDamaged))
	}
	return err
}

// detail is err's message without reason's own words in front.
func detail(err, reason error) string {
	return strings.TrimPrefix(err.Error(), reason.Error()+": ")
}

func hasLetters(text string) bool {
	for _, r := range text {
		if r > ' ' && r != 0xFFFD {
			return true
		}
	}
	return false
}
