// Package testdocs writes documents of every supported type for tests and benchmarks:
// PDFs (through fpdf), DOCX archives, HTML, Markdown and text, with known facts in known
// places, and the unreadable kinds (scans, password-protected, damaged).
package testdocs

import (
	"archive/zip"
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"strings"

	"codeberg.org/go-pdf/fpdf"
)

// Needle is the fact hidden on one page of LongPDF; NeedleQuestion asks for it.
const (
	Needle         = "The access code for the Halvorsen archive vault is 7341-QUARTZ."
	NeedleQuestion = "What is the access code for the Halvorsen archive vault?"
)

var vocabulary = strings.Fields(`the contract party shall notify within thirty days of termination
payment invoice delivery goods warranty liability damages clause section agreement confidential
information disclosure obligations term renewal notice breach remedy court law jurisdiction
dispute arbitration supplier customer service level report quarter budget forecast meeting
schedule project milestone review approval engineering design test release quality audit
security policy training employee manager office travel expense receipt account balance`)

// Filler returns about n bytes of plausible prose, the same for the same seed.
func Filler(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	words := 0
	for b.Len() < n {
		w := vocabulary[r.IntN(len(vocabulary))]
		if words == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		words++
		if words > 8+r.IntN(10) {
			b.WriteString(". ")
			words = 0
		} else {
			b.WriteByte(' ')
		}
	}
	return strings.TrimSpace(b.String()) + "."
}

// PDF writes a PDF with one page per entry of pages (each wrapped to the page width).
func PDF(pages []string) []byte {
	return pdfWith(pages, nil)
}

func pdfWith(pages []string, setup func(*fpdf.Fpdf)) []byte {
	f := fpdf.New("P", "mm", "A4", "")
	f.SetCompression(true)
	if setup != nil {
		setup(f)
	}
	f.SetFont("Helvetica", "", 10)
	f.SetAutoPageBreak(false, 10)
	for _, p := range pages {
		f.AddPage()
		f.MultiCell(0, 4.5, p, "", "L", false)
	}
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		panic(fmt.Sprintf("testdocs: write PDF: %v", err))
	}
	return buf.Bytes()
}

// LongPDF writes a PDF of n pages of about 3 KB of text each, with Needle on page
// needlePage (1-based; 0 for none).
func LongPDF(n, needlePage int) []byte {
	return PDF(LongPages(n, needlePage))
}

// LongPages is the text of LongPDF's pages.
func LongPages(n, needlePage int) []string {
	pages := make([]string, n)
	for i := range pages {
		text := Filler(uint64(i), 2900)
		if i+1 == needlePage {
			mid := strings.Index(text[len(text)/2:], ". ") + len(text)/2 + 2
			text = text[:mid] + Needle + " " + text[mid:]
		}
		pages[i] = text
	}
	return pages
}

// EncryptedPDF needs the password "secret" to be opened.
func EncryptedPDF() []byte {
	return pdfWith([]string{"Nobody may read this without the password."}, func(f *fpdf.Fpdf) {
		f.SetProtection(fpdf.CnProtectPrint, "secret", "owner")
	})
}

// OwnerProtectedPDF is encrypted (40-bit RC4) with an empty user password and an owner
// password that forbids printing: every reader opens it without asking.
func OwnerProtectedPDF(pages []string) []byte {
	return pdfWith(pages, func(f *fpdf.Fpdf) {
		f.SetProtection(fpdf.CnProtectCopy, "", "owner")
	})
}

// ScannedPDF has pages that hold only an image, as a scanner makes them.
func ScannedPDF(pages int) []byte {
	img := image.NewGray(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = uint8(200 + i%40)
	}
	img.Set(10, 10, color.Black)
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, img); err != nil {
		panic(err)
	}
	f := fpdf.New("P", "mm", "A4", "")
	f.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(pngBuf.Bytes()))
	for range pages {
		f.AddPage()
		f.ImageOptions("scan", 10, 10, 190, 270, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	}
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Para is a paragraph of a DOCX; Style "Heading1"… makes it a heading.
type Para struct{ Style, Text string }

// DOCX writes a minimal Word document holding paras.
func DOCX(paras []Para) []byte {
	var body strings.Builder
	for _, p := range paras {
		body.WriteString("<w:p>")
		if p.Style != "" {
			fmt.Fprintf(&body, `<w:pPr><w:pStyle w:val="%s"/></w:pPr>`, p.Style)
		}
		for i, line := range strings.Split(p.Text, "\n") {
			if i > 0 {
				body.WriteString("<w:r><w:br/></w:r>")
			}
			fmt.Fprintf(&body, `<w:r><w:t xml:space="preserve">%s</w:t></w:r>`, html.EscapeString(line))
		}
		body.WriteString("</w:p>")
	}
	files := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"_rels/.rels":         `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
		"word/document.xml":   `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`,
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels", "word/document.xml"} {
		w, err := zw.Create(name)
		if err != nil {
			panic(err)
		}
		if _, err := w.Write([]byte(files[name])); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// File is one file of a Zip archive.
type File struct{ Name, Body string }

// Zip packs files in order (an ODF's or EPUB's mimetype first, stored, as they require).
func Zip(files ...File) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		method := zip.Deflate
		if f.Name == "mimetype" {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: method})
		if err != nil {
			panic(err)
		}
		if _, err := w.Write([]byte(f.Body)); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
