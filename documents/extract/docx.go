package extract

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// readDOCX reads word/document.xml from a DOCX (Office Open XML) archive: paragraphs in
// order, tables cell by cell, split at paragraphs styled as headings (Title, Heading1–9).
func readDOCX(b *budget, data []byte) (*Document, error) {
	if bytes.HasPrefix(data, []byte{0xD0, 0xCF, 0x11, 0xE0}) {
		// An OLE compound file: an encrypted Office document (or an old binary .doc).
		return nil, fmt.Errorf("%w (or it is an old .doc file; save it as .docx without a password)", ErrEncrypted)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: not a zip archive (%v)", ErrCorrupt, err)
	}
	var part *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			part = f
		}
	}
	if part == nil {
		return nil, fmt.Errorf("%w: word/document.xml is missing", ErrCorrupt)
	}
	if part.UncompressedSize64 > MaxPartBytes {
		return nil, fmt.Errorf("%w: its text unpacks to %s", ErrTooBig, mbUp(int64(part.UncompressedSize64)))
	}
	rc, err := part.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	defer rc.Close()
	return parseDocumentXML(b.limit(rc, part.Name))
}

// parseDocumentXML walks WordprocessingML: w:p paragraphs with w:t text, w:tab and w:br,
// and the paragraph style (w:pStyle) that marks headings.
func parseDocumentXML(r io.Reader) (*Document, error) {
	dec := xml.NewDecoder(r)
	doc := &Document{Format: "docx"}
	var h headings
	var body, para strings.Builder
	style, inText := "", false
	flush := func() {
		if strings.TrimSpace(body.String()) != "" {
			doc.Sections = append(doc.Sections, Section{Heading: h.String(), Text: body.String()})
		}
		body.Reset()
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: word/document.xml: %v", ErrCorrupt, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "p":
				para.Reset()
				style = ""
			case "pStyle":
				style = attr(t, "val")
			case "t":
				inText = true
			case "tab":
				para.WriteByte('\t')
			case "br", "cr":
				para.WriteByte('\n')
			case "tc":
				para.WriteByte('\t')
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				text := para.String()
				if level := styleLevel(style); level > 0 && strings.TrimSpace(text) != "" {
					flush()
					h.set(level, strings.Join(strings.Fields(text), " "))
					continue
				}
				body.WriteString(text)
				body.WriteString("\n\n")
			}
		case xml.CharData:
			if inText {
				para.Write(t)
			}
		}
		if body.Len() > MaxTextBytes {
			return nil, fmt.Errorf("%w: more than %d MB of text", ErrTooBig, MaxTextBytes>>20)
		}
	}
	flush()
	return doc, nil
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// styleLevel maps Word's built-in style ids to heading levels: Title 1, Heading1–6 as is
// (7–9 are folded into 6), anything else 0.
func styleLevel(style string) int {
	s := strings.ToLower(strings.ReplaceAll(style, " ", ""))
	if s == "title" {
		return 1
	}
	if rest, ok := strings.CutPrefix(s, "heading"); ok && len(rest) == 1 && rest[0] >= '1' && rest[0] <= '9' {
		return min(int(rest[0]-'0'), 6)
	}
	return 0
}
