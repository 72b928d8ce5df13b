package pdftext

import "bytes"

// Objects without "endobj". A writer that leaves out an object's "endobj" (pdf-lib's
// missing_endobj_keyword.pdf: its last object, a font, runs into "xref") makes the object
// reader reject the object ("missing endobj after indirect object definition"), and with it
// the pages that use it, where pdftotext reads them. withEndobjs puts the keyword back; the
// offsets move, so the file is opened again through rebuiltXref's scan (rereads.go).

// withEndobjs returns a copy of data with "endobj" put after each object that runs into the
// next object, or into "xref", "trailer" or "startxref", without one, and whether it put any.
func withEndobjs(data []byte) ([]byte, bool) {
	hs := objectHeaders(data)
	w := rewrite{data: data}
	for k, h := range hs {
		if h.end < w.kept {
			continue // a header inside the previous one's text
		}
		next := len(data)
		if k+1 < len(hs) {
			next = hs[k+1].start
		}
		if next < h.end {
			continue
		}
		body := data[h.end:next]
		if bytes.Contains(body, []byte("endobj")) {
			continue
		}
		at := len(body)
		for _, kw := range []string{"startxref", "trailer", "xref"} {
			if i := bytes.Index(body, []byte(kw)); i >= 0 && i < at {
				at = i
			}
		}
		if bytes.Contains(body[:at], []byte("stream")) && !bytes.Contains(body[:at], []byte("endstream")) {
			continue // a stream cut short: not for this repair
		}
		w.insert(h.end+at, "\nendobj\n")
	}
	return w.result()
}
