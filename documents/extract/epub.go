package extract

import (
	"encoding/xml"
	"fmt"
	"path"
	"strings"
)

// readEPUB reads an EPUB: the package document (OPF) named by META-INF/container.xml
// lists the book's XHTML files in reading order (its spine), and each is read as HTML (SVG
// pages too, as inline SVG; other kinds through their manifest fallbacks).
// Items marked non-linear (shown only when a link leads there: other languages' copies,
// answer pages) are left out, as pandoc leaves them, and so are the titles of chapters
// without text (blank pages, pictures without alt text), which pandoc does not print.
func readEPUB(b *budget, data []byte) (*Document, error) {
	a, err := openArchive(b, data)
	if err != nil {
		return nil, err
	}
	opf, root := "", bookRoot(a)
	if container := root + "META-INF/container.xml"; a.has(container) {
		err := a.walkXML(container, func(tok xml.Token) error {
			if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "rootfile" && opf == "" {
				opf = resolve(root, attr(t, "full-path"))
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
			items[attr(t, "id")] = epubItem{resolve(opf, attr(t, "href")), attr(t, "media-type"), attr(t, "fallback")}
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
	encrypted, err := encryptedParts(a, root)
	if err != nil {
		return nil, err
	}
	doc := &Document{Format: "epub"}
	seen := map[string]bool{}
	for _, id := range spine {
		it, ok := items[id]
		// a spine item of another kind stands for the first of its fallbacks that is a
		// content document (EPUB 3's foreign resources)
		for i := 0; ok && !isXHTML(it) && !isSVG(it) && it.fallback != "" && i < 10; i++ {
			it, ok = items[it.fallback]
		}
		if !ok || seen[it.href] || !a.has(it.href) || !isXHTML(it) && !isSVG(it) {
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
		part, _, err := readHTMLBody(b, chapter)
		if err != nil {
			return nil, partError(it.href, err)
		}
		doc.Sections = append(doc.Sections, part.Sections...)
	}
	return doc, nil
}

// encryptedParts lists the files META-INF/encryption.xml says are encrypted (fonts are,
// harmlessly, in many books; chapters are under DRM).
func encryptedParts(a *archive, root string) (map[string]bool, error) {
	parts := map[string]bool{}
	if !a.has(root + "META-INF/encryption.xml") {
		return parts, nil
	}
	err := a.walkXML(root+"META-INF/encryption.xml", func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "CipherReference" {
			parts[resolve(root, attr(t, "URI"))] = true
		}
		return nil
	})
	return parts, err
}

// bookRoot is the folder the book's files are packed under: "" as the format has it, or the
// one folder that holds META-INF/container.xml where the archive has none at its root
// (Debian Edu's manuals zip their build folder: "epub/META-INF/container.xml",
// "epub/OEBPS/…"; pandoc and EPUB readers that go by the format refuse them).
func bookRoot(a *archive) string {
	if a.has("META-INF/container.xml") {
		return ""
	}
	root := ""
	for name := range a.files {
		dir, ok := strings.CutSuffix(name, "META-INF/container.xml")
		if !ok || strings.Count(dir, "/") != 1 || !strings.HasSuffix(dir, "/") {
			continue
		}
		if root != "" && root != dir {
			return "" // two books in one archive: which one is meant is not known
		}
		root = dir
	}
	return root
}

// epubItem is a file of the book's manifest: where it is, its media type and the item that
// stands for it where it cannot be shown (its fallback).
type epubItem struct{ href, mediaType, fallback string }

// isSVG says an item is an SVG content document, which EPUB 3 books may have in their spine
// (a page drawn as SVG): its text elements are read as an HTML page's inline SVG.
func isSVG(it epubItem) bool {
	return it.mediaType == "image/svg+xml" || it.mediaType == "" && strings.EqualFold(path.Ext(it.href), ".svg")
}

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
