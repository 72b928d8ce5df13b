package pdftext

import "bytes"

// Spaces after the keyword "stream". The keyword is to end its line (ISO 32000-1 §7.3.8.1),
// but some writers put a space before the line end ("<< /Length 1850 >> stream \r\n": pdf-lib's
// with_invalid_stream_EOL.pdf, from a real file); the object reader then rejects the whole
// document ("stream keyword not followed by newline") where pdftotext, skipping to the next
// line, reads it, or the pages whose content streams are so written. withStreamLineEnds
// drops those spaces; the offsets move, so the file is opened again through rebuiltXref's
// scan (rereads.go).

// withStreamLineEnds returns a copy of data without the spaces and tabs between each stream
// keyword (after ">>" or white space) and its line end, and whether it dropped any. A
// stream's data is passed over up to its "endstream".
func withStreamLineEnds(data []byte) ([]byte, bool) {
	w := rewrite{data: data}
	for i := 0; ; {
		k := bytes.Index(data[i:], []byte("stream"))
		if k < 0 {
			break
		}
		i += k
		if i == 0 || !isStreamLead(data[i-1]) {
			i += len("stream")
			continue
		}
		e := i + len("stream")
		j := e
		for j < len(data) && (data[j] == ' ' || data[j] == '\t') {
			j++
		}
		if j > e && j < len(data) && (data[j] == '\r' || data[j] == '\n') {
			w.cut(e, j)
		}
		end := bytes.Index(data[j:], []byte("endstream"))
		if end < 0 {
			break
		}
		i = j + end + len("endstream")
	}
	return w.result()
}

// isStreamLead says whether c may stand before a stream keyword: the end of its dictionary or
// white space (not the "end" of "endstream").
func isStreamLead(c byte) bool {
	return c == '>' || c == ' ' || c == '\r' || c == '\n' || c == '\t' || c == '\f'
}
