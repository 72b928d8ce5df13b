package extract

import (
	"encoding/xml"
	"fmt"
	"path"
	"strings"
)

// readEPUB reads an EPUB: the package document (OPF) named by META-INF/container.xml
// lists the book's XHTML files in reading order (its spine), and each is read as HTML.
// Items marked non-linear (shown only when a link leads there: other languages' copies,
// answer pages) are left out, as pandoc leaves them.
func readEPUB(b *budget, data []byte) (*Document, error) {
	a, err := openArchive(b, data)
	if err != nil {
		return nil, err
	}
	opf := ""
	if a.has("META-INF/container.xml") {
		err := a.walkXML("META-INF/container.xml", func(tok xml.Token) error {
			if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "rootfile" && opf == "" {
				opf = resolve("", attr(t, "full-path"))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if opf == "" || !a.has(opf) {
		return nil, fmt.Errorf("%w: META-INF/container.xml does not name the book's contents", ErrCorrupt)
	}
	items := map[string]epubItem{}
	var spine []string // the linear items' ids
	err = a.walkXML(opf, func(tok xml.Token) error {
		t, ok := tok.(xml.StartElement)
		if !ok {
			return nil
		}
		switch t.Name.Local {
		case "item":
			items[attr(t, "id")] = epubItem{resolve(opf, attr(t, "href")), attr(t, "media-type")}
		case "itemref":
			if attr(t, "linear") != "no" {
				spine = append(spine, attr(t, "idref"))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	encrypted, err := encryptedParts(a)
	if err != nil {
		return nil, err
	}
	doc := &Document{Format: "epub"}
	seen := map[string]bool{}
	for _, id := range spine {
		it, ok := items[id]
		if !ok || seen[it.href] || !a.has(it.href) || !isXHTML(it) {
			continue
		}
		seen[it.href] = true
		if encrypted[it.href] {
			return nil, errDRM{}
		}
		chapter, err := a.read(it.href)
		if err != nil {
			return nil, err
		}
		part, err := readHTML(b, chapter)
		if err != nil {
			return nil, partError(it.href, err)
		}
		doc.Sections = append(doc.Sections, part.Sections...)
	}
	return doc, nil
}

// encryptedParts lists the files META-INF/encryption.xml says are encrypted (fonts are,
// harmlessly, in many books; chapters are under DRM).
func encryptedParts(a *archive) (map[string]bool, error) {
	parts := map[string]bool{}
	if !a.has("META-INF/encryption.xml") {
		return parts, nil
	}
	err := a.walkXML("META-INF/encryption.xml", func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "CipherReference" {
			parts[resolve("", attr(t, "URI"))] = true
		}
		return nil
	})
	return parts, err
}

// epubItem is a file of the book's manifest.
type epubItem struct{ href, mediaType string }

func isXHTML(it epubItem) bool {
	switch it.mediaType {
	case "application/xhtml+xml", "text/html", "application/x-dtbook+xml":
		return true
	case "":
		ext := strings.ToLower(path.Ext(it.href))
		return ext == ".xhtml" || ext == ".html" || ext == ".htm"
	}
	return false
}
