package pdftext

import (
	"bytes"

	"github.com/ledongthuc/pdf"
)

// Streams whose /Length is missing or wrong. The object reader takes a stream's data as
// /Length bytes from its start: without a /Length it reads none (pdfium's test files leave it
// out on purpose, "Note this object deliberately does not use /Length"), and a /Length
// changed by hand or by a tool that rewrote the data reads short or runs into the next
// objects. pdftotext finds such a stream's end at its "endstream". So does storedLength,
// where the /Length given does not end there; stream then decodes the data itself
// (filters.go) when it knows every filter, and rawStream, which images read, gives them.

// storedLength is the length of the data of a stream starting at off in data, given length:
// length itself when "endstream" follows it (after an end of line or white space), else
// the bytes up to the first "endstream" after off, less the end of line before it, and
// remeasured true. A length that fits neither, with no "endstream" after off before an
// "endobj", stands.
func storedLength(data []byte, off int64, length pdf.Value) (n int64, remeasured bool) {
	n = length.Int64()
	if off < 0 || off > int64(len(data)) {
		return n, false
	}
	if length.Kind() == pdf.Integer && n >= 0 && n <= int64(len(data))-off {
		if rest := bytes.TrimLeft(data[off+n:], pdfSpace); bytes.HasPrefix(rest, []byte("endstream")) {
			return n, false
		}
	}
	end := bytes.Index(data[off:], []byte("endstream"))
	if end < 0 || bytes.Contains(data[off:off+int64(end)], []byte("endobj")) {
		return n, false // none, or a later object's: the stream has no "endstream"
	}
	stored := data[off : off+int64(end)]
	if bytes.HasSuffix(stored, []byte("\r\n")) {
		stored = stored[:len(stored)-2]
	} else if bytes.HasSuffix(stored, []byte("\n")) || bytes.HasSuffix(stored, []byte("\r")) {
		stored = stored[:len(stored)-1]
	}
	return int64(len(stored)), int64(len(stored)) != n || length.Kind() != pdf.Integer
}

// misMeasured says whether v's /Length does not end its data and v's data are to be decoded
// here (filters.go): the file is not encrypted and each of v's filters is one decodeFilters
// reads.
func (r *reader) misMeasured(v pdf.Value) bool {
	if r.pdf.Trailer().Key("Encrypt").Kind() != pdf.Null {
		return false
	}
	off, ok := streamOffset(v)
	if !ok {
		return false
	}
	if _, remeasured := storedLength(r.data, off, v.Key("Length")); !remeasured {
		return false
	}
	for _, f := range streamFilters(v) {
		if _, known, _ := decodeStage(bytes.NewReader(nil), f); !known || f.predictor > 1 {
			return false
		}
	}
	return true
}
