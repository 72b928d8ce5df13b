package main

import (
	"archive/zip"
	"fmt"
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// A sibling truth: where pdftotext is wrong (glyphs of fonts without ToUnicode printed as
// the Latin letters of their codes, marks in another order than the text's), comparing with
// it cannot say whether EdgeChat is right. Some documents come with the same text in a
// format both EdgeChat and pandoc read exactly (LibreOffice's ODT, Word's DOCX, which
// SIL's type specimens ship next to their PDFs; InDesign's IDML, whose stories' text
// doccheck reads itself: idmlText; an EPUB made from the same source, as eyes17's manuals ship
// beside their PDFs) or is its source (a Velthuis .dn file, TeX
// with Devanagari in transliteration: velthuis.go); --truth scores the PDF against that
// sibling too, EdgeChat's text and pdftotext's alike, by the same words (composed, NFC).

// siblingKinds are the formats a sibling truth may have, in the order they are looked for.
var siblingKinds = []string{".odt", ".docx", ".idml", ".dn", ".epub"}

// sibling is the document next to a PDF with its name and another format, "" when none.
func sibling(pdf string) string {
	base := strings.TrimSuffix(pdf, filepath.Ext(pdf))
	for _, ext := range siblingKinds {
		for _, name := range []string{base + ext, base + ext + ".gz"} {
			if _, err := os.Stat(name); err == nil {
				return name
			}
		}
	}
	return ""
}

// truthRow is one PDF scored against its sibling: EdgeChat's text and pdftotext's.
type truthRow struct {
	doc, sibling           string
	ours, oursP, ref, refP float64
	words                  int
}

type truthScores struct{ rows []truthRow }

// add scores ours and ref (pdftotext's text) of doc against doc's sibling, if it has one.
func (t *truthScores) add(doc string, ours, ref []byte, loose bool) {
	sib := sibling(doc)
	if sib == "" {
		return
	}
	if strings.HasSuffix(sib, ".gz") {
		plain := strings.TrimSuffix(sib, ".gz")
		if _, err := os.Stat(plain); err != nil {
			gunzip(sib)
		}
		sib = plain
	}
	var want []byte
	if strings.HasSuffix(sib, ".idml") {
		text, err := idmlText(sib)
		if err != nil {
			fmt.Fprintf(os.Stderr, "doccheck: %s: %v\n", short(sib), err)
			return
		}
		want = []byte(text)
	} else if strings.HasSuffix(sib, ".dn") {
		src, err := os.ReadFile(sib)
		if err != nil {
			fmt.Fprintf(os.Stderr, "doccheck: %v\n", err)
			return
		}
		want = []byte(velthuisText(string(src)))
	} else {
		text, _, err := reference(sib)
		if err != nil {
			fmt.Fprintf(os.Stderr, "doccheck: %s: %v\n", short(sib), firstLine(err.Error()))
			return
		}
		want = unmark(text, true)
	}
	ws := words(want, loose)
	row := truthRow{doc: doc, sibling: sib, words: len(ws)}
	row.ours, row.oursP = compare(ws, words(unmark(ours, false), loose))
	row.ref, row.refP = compare(ws, words(unmark(ref, false), loose))
	t.rows = append(t.rows, row)
}

// print writes the table of PDFs against their siblings.
func (t *truthScores) print() {
	if len(t.rows) == 0 {
		fmt.Println("\nno PDF has a sibling (.odt, .docx) to score against")
		return
	}
	fmt.Printf("\nagainst the sibling truth (the same document as %s: pandoc's text, or the Velthuis source spelled out):\n", strings.Join(siblingKinds, ", "))
	fmt.Printf("%-58s %-8s %7s %7s %9s %9s %7s\n", "file", "sibling", "recall", "prec", "pdftotext r", "p", "words")
	for _, r := range t.rows {
		fmt.Printf("%-58s %-8s %7.3f %7.3f %9.3f %9.3f %7d\n", short(r.doc), filepath.Ext(r.sibling), r.ours, r.oursP, r.ref, r.refP, r.words)
	}
}

// gunzip unpacks name.gz next to it, keeping the packed file.
func gunzip(name string) {
	exec.Command("sh", "-c", "gunzip -kf "+shellQuote(name)).Run()
}

var (
	idmlBreak   = regexp.MustCompile(`<Br\s*/>|</ParagraphStyleRange>`)
	idmlContent = regexp.MustCompile(`(?s)<Content>(.*?)</Content>|\n`)
)

// idmlText is the text of an InDesign IDML package: its stories' Content, a paragraph a line
// (a paragraph's runs of one character style are joined as they stand).
func idmlText(name string) (string, error) {
	zr, err := zip.OpenReader(name)
	if err != nil {
		return "", err
	}
	defer zr.Close()
	var b strings.Builder
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "Stories/") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return "", err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return "", err
		}
		story := idmlBreak.ReplaceAllString(string(data), "\n")
		for _, m := range idmlContent.FindAllStringSubmatch(story, -1) {
			if m[0] == "\n" {
				b.WriteString("\n")
				continue
			}
			b.WriteString(html.UnescapeString(m[1]))
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}
