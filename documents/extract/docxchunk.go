package extract

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"path"
	"strings"
)

// maxChunkDepth bounds alt-chunks inside alt-chunks (a DOCX chunk may hold chunks of its own).
const maxChunkDepth = 3

// altChunk reads in place the part a w:altChunk of part names through its relationship id:
// content Word imports when it opens the file (an HTML page, an MHT web archive, RTF,
// plain text or another DOCX), read with the reader of its format. A chunk that is
// missing, external, damaged or of another kind costs only its own text.
func (w *wordWalker) altChunk(a *archive, part, id string) error {
	if w.depth >= maxChunkDepth {
		return nil
	}
	target := w.relTarget(a, part, id)
	if target == "" || !a.has(target) {
		return nil
	}
	data, err := a.read(target)
	if err != nil {
		return chunkErr(w.b, err)
	}
	var doc *Document
	switch ext := strings.ToLower(path.Ext(target)); {
	case ext == ".mht" || ext == ".mhtml":
		page := mhtPage(data)
		if page == nil {
			return nil
		}
		doc, err = readHTML(w.b, page)
	case ext == ".xml": // Word 2003 XML and flat OPC: not read
		return nil
	default:
		switch FormatOf(target, data) {
		case "html":
			doc, err = readHTML(w.b, data)
		case "rtf":
			doc, err = readRTF(w.b, data)
		case "text":
			doc, err = readText(w.b, data, "text")
		case "docx":
			doc, err = readWord(w.b, data, w.depth+1)
		default:
			return nil
		}
	}
	if err != nil {
		return chunkErr(w.b, err)
	}
	w.insert(doc)
	return nil
}

// chunkErr keeps the errors that stop the whole document (its budgets, its deadline) and
// drops those that cost only the chunk.
func chunkErr(b *budget, err error) error {
	if e := b.alive(); e != nil {
		return e
	}
	if errors.Is(err, ErrTooBig) || errors.Is(err, ErrTooSlow) {
		return err
	}
	return nil
}

// relTarget is the archive path that relationship id of part names, "" if none (or an
// external one).
func (w *wordWalker) relTarget(a *archive, part, id string) string {
	if w.rels == nil {
		w.rels = relTargets(a, part) // damaged relationships: no chunks
	}
	return w.rels[id]
}

// insert places a chunk's sections where the chunk stands: its headings as the
// document's headings of their levels, its paragraphs as paragraphs (in a table cell,
// the cell's text).
func (w *wordWalker) insert(doc *Document) {
	var last []string
	for _, s := range doc.Sections {
		var path []string
		if s.Heading != "" {
			path = strings.Split(s.Heading, " › ")
		}
		i := 0
		for i < len(path) && i < len(last) && path[i] == last[i] {
			i++
		}
		for ; i < len(path); i++ { // the headings that change
			p := &wordPara{num: wordNumRef{level: -1}, outline: min(i+1, 9)}
			p.text.WriteString(path[i])
			w.endPara(p)
		}
		last = path
		for _, para := range strings.Split(s.Text, "\n\n") {
			p := &wordPara{num: wordNumRef{level: -1}}
			p.text.WriteString(para)
			w.endPara(p)
		}
	}
}

// mhtPage is the HTML page of an MHT web archive (a MIME multipart/related message):
// its first text/html part, decoded, or the message's body when it is not multipart.
func mhtPage(data []byte) []byte {
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	media, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return nil
	}
	if !strings.HasPrefix(media, "multipart/") {
		return decodePart(msg.Body, msg.Header.Get("Content-Transfer-Encoding"))
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := r.NextRawPart()
		if err != nil {
			return nil
		}
		if media, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); media == "text/html" {
			return decodePart(p, p.Header.Get("Content-Transfer-Encoding"))
		}
	}
}

// decodePart reads a MIME part in its transfer encoding (quoted-printable, base64, or
// as it is).
func decodePart(r io.Reader, encoding string) []byte {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r)
	}
	b, err := io.ReadAll(io.LimitReader(r, MaxFileBytes))
	if err != nil && len(b) == 0 {
		return nil
	}
	return b
}
