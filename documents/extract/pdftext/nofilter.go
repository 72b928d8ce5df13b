package pdftext

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"

	cflate "compress/flate"
)

// Streams compressed without a /Filter: some producers deflate a stream and leave out the key
// that says so (pdf.js's issue19802.pdf: its ToUnicode map), and readers that take the bytes
// as they are lose what the stream holds. A stream without filters whose bytes start as zlib
// data does and inflate whole is read inflated.

// inflateUnfiltered returns data inflated, or data itself when it does not inflate whole;
// the inflated bytes count against the budgets (what names the stream), whose errors come
// back as they are.
func (r *reader) inflateUnfiltered(data []byte, what string) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return data, nil
	}
	var rd io.Reader = zr
	if r.opt.Limit != nil {
		rd = r.opt.Limit(rd, what)
	}
	inflated, err := io.ReadAll(rd)
	switch {
	case err == nil:
		return inflated, nil
	case notZlib(err):
		return data, nil
	}
	return nil, err // a budget's
}

// notZlib says whether err is zlib's or flate's own: data that only looked compressed.
func notZlib(err error) bool {
	return errors.Is(err, zlib.ErrHeader) || errors.Is(err, zlib.ErrChecksum) || errors.Is(err, zlib.ErrDictionary) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, new(cflate.CorruptInputError))
}

// looksZlib says whether data starts as a zlib stream does: deflate (method 8) with a window
// of at most 32 KB, no preset dictionary and a header whose check bits are right — one in
// about a thousand random two-byte starts, and none of the text a content stream or a CMap
// begins with.
func looksZlib(data []byte) bool {
	return len(data) > 2 && data[0]&0x0f == 8 && data[0]>>4 <= 7 && (uint16(data[0])<<8|uint16(data[1]))%31 == 0 && data[1]&0x20 == 0
}
