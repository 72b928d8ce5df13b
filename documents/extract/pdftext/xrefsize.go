package pdftext

import (
	"bytes"
	"regexp"
	"strconv"
)

// Cross-reference sections that number objects beyond what the file could hold. The object
// reader makes its table of objects as long as the largest number a section lists: a
// subsection "4294967296 3" (a fuzzed file of pdf.js's tests), an /Index or a /Size of
// billions, asks for gigabytes, and the allocation ends the whole program (Go's "out of
// memory" is fatal, no recover catches it). xrefFault reads the sections the object
// reader would read, from the last startxref along /Prev, before it does; a file
// it flags is read from its objects found by scanning (repair.go), as pdftotext reads it.

// xrefLimit is the largest object count a file of n bytes is taken to hold before its
// sections are distrusted: a table that long costs the object reader 32 bytes an object, so
// at most 32 MB for a file of up to 1 MB and 256 MB at the PDF's own limit of 8,388,607
// objects.
func xrefLimit(n int) int64 { return int64(min(maxRepairObjects, max(n, 1<<20))) }

// maxXrefSections bounds the /Prev chain xrefFault follows.
const maxXrefSections = 1000

// xrefFault says what is wrong with the cross-reference sections of data that the object
// reader cannot survive, "" when nothing: a section that lists an object numbered at or
// beyond xrefLimit, or a /Prev that leads back to a section read before. The object reader
// follows /Prev without end there (qpdf's issue-149.pdf and append-xref-loop.pdf, two
// sections each naming the other: it hung until it was killed); pdftotext stops at the
// section read before and reads the file.
func xrefFault(data []byte) string {
	limit := xrefLimit(len(data))
	i := bytes.LastIndex(data, []byte("startxref"))
	if i < 0 {
		return ""
	}
	off, ok := leadingInt(data[i+len("startxref"):])
	seen := map[int64]bool{}
	for n := 0; ok && n < maxXrefSections && 0 <= off && off < int64(len(data)); n++ {
		if seen[off] {
			return "its cross-reference sections' /Prev entries loop"
		}
		seen[off] = true
		var over bool
		section := bytes.TrimLeft(data[off:], pdfSpace)
		if bytes.HasPrefix(section, []byte("xref")) {
			over, off, ok = tableOversized(section[len("xref"):], limit)
		} else {
			over, off, ok = streamOversized(section, limit)
		}
		if over {
			return "its cross-reference section numbers objects beyond what the file holds"
		}
	}
	return ""
}

// pdfSpace is the PDF's white space.
const pdfSpace = " \t\r\n\f\x00"

// tableOversized reads a cross-reference table after its "xref" as the object reader does:
// subsections of a first number and a count, each followed by that many entries of an
// offset, a generation and "n" or "f", up to "trailer". over says an entry read numbers an
// object at or beyond limit; prev is the trailer's /Prev, when ok.
func tableOversized(b []byte, limit int64) (over bool, prev int64, ok bool) {
	fields := &tokens{b: b}
	for {
		tok := fields.next()
		if tok == nil {
			return false, 0, false
		}
		if string(tok) == "trailer" {
			prev, ok := trailerPrev(fields.b[fields.at:])
			return false, prev, ok
		}
		start, err1 := strconv.ParseInt(string(tok), 10, 64)
		count, err2 := strconv.ParseInt(string(fields.next()), 10, 64)
		if err1 != nil || err2 != nil {
			return false, 0, false
		}
		for i := int64(0); i < count; i++ {
			off, gen, kind := fields.next(), fields.next(), string(fields.next())
			if _, err := strconv.ParseInt(string(off), 10, 64); err != nil || gen == nil || kind != "n" && kind != "f" {
				return false, 0, false // the object reader stops here: "malformed xref table"
			}
			if start+i >= limit || start+i < 0 {
				return true, 0, false
			}
		}
	}
}

// tokens splits a cross-reference table at white space.
type tokens struct {
	b  []byte
	at int
}

func (t *tokens) next() []byte {
	for t.at < len(t.b) && bytes.IndexByte([]byte(pdfSpace), t.b[t.at]) >= 0 {
		t.at++
	}
	start := t.at
	for t.at < len(t.b) && bytes.IndexByte([]byte(pdfSpace), t.b[t.at]) < 0 {
		t.at++
	}
	if start == t.at {
		return nil
	}
	return t.b[start:t.at]
}

// The entries of a trailer or a cross-reference stream's dictionary that size the object
// reader's table.
var (
	xrefPrev  = regexp.MustCompile(`/Prev\s+(\d+)`)
	xrefSize  = regexp.MustCompile(`/Size\s+(\d+)`)
	xrefIndex = regexp.MustCompile(`/Index\s*\[([^\]]*)\]`)
)

// trailerPrev is the /Prev of the trailer dictionary b starts with.
func trailerPrev(b []byte) (int64, bool) {
	dict := b[:min(len(b), 4096)]
	if end := bytes.Index(dict, []byte("startxref")); end >= 0 {
		dict = dict[:end]
	}
	m := xrefPrev.FindSubmatch(dict)
	if m == nil {
		return 0, false
	}
	return leadingInt(m[1])
}

// streamOversized reads the dictionary of the cross-reference stream b starts with ("N G
// obj << … >> stream"): over says its /Size or a subsection of its /Index reaches limit;
// prev is its /Prev, when ok.
func streamOversized(b []byte, limit int64) (over bool, prev int64, ok bool) {
	dict := b[:min(len(b), 4096)]
	end := bytes.Index(dict, []byte("stream"))
	if end < 0 {
		return false, 0, false
	}
	dict = dict[:end]
	if m := xrefSize.FindSubmatch(dict); m != nil {
		if n, err := strconv.ParseInt(string(m[1]), 10, 64); err != nil || n > limit {
			return true, 0, false
		}
	}
	if m := xrefIndex.FindSubmatch(dict); m != nil {
		t := &tokens{b: m[1]}
		for {
			a, b := t.next(), t.next()
			if a == nil || b == nil {
				break
			}
			start, err1 := strconv.ParseInt(string(a), 10, 64)
			count, err2 := strconv.ParseInt(string(b), 10, 64)
			if err1 != nil || err2 != nil {
				break
			}
			if start < 0 || count < 0 || start > limit || count > limit || start+count > limit {
				return true, 0, false
			}
		}
	}
	m := xrefPrev.FindSubmatch(dict)
	if m == nil {
		return false, 0, false
	}
	prev, ok = leadingInt(m[1])
	return false, prev, ok
}

// leadingInt is the unsigned integer b starts with, after white space.
func leadingInt(b []byte) (int64, bool) {
	b = bytes.TrimLeft(b, pdfSpace)
	n := 0
	for n < len(b) && n < 18 && '0' <= b[n] && b[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, false
	}
	v, err := strconv.ParseInt(string(b[:n]), 10, 64)
	return v, err == nil
}
