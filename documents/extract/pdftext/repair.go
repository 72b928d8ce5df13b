package pdftext

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
)

// Damaged cross-reference sections. A PDF's objects are found through the table at the
// offset its last "startxref" names; files cut short, saved with their line ends changed,
// or given bytes before the header by a mail gateway point it at the wrong place, and the
// object reader then fails ("cross-reference table not found") where pdftotext, like other
// readers, finds the objects by scanning the file. rebuiltXref does that scan and appends a
// new cross-reference stream that lists what it found, so the object reader can open the
// file as if it had been saved whole.

// header is one "N G obj": the offset of N, the offset after "obj", and N and G.
type header struct {
	start, end int
	num, gen   int
}

// objectHeaders returns each "N G obj" at a line start or after a delimiter, in order, as
// the regular expression objHeader in repair_test.go finds them but several times faster
// (the expression took most of the time of decryptedCopy on real files): "obj" after a
// generation of 1–5 digits and an object number of 1–10 digits, each followed by
// spaces, the number at the start or after a space, '>' or ']', "obj" not followed by a
// word character.
func objectHeaders(data []byte) []header {
	var hs []header
	isWS := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == 0 }
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	for i := 0; ; i += 3 {
		k := bytes.Index(data[i:], []byte("obj"))
		if k < 0 {
			return hs
		}
		i += k
		if e := i + 3; e < len(data) {
			if c := data[e]; isDigit(c) || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				continue
			}
		}
		j := i
		for j > 0 && isWS(data[j-1]) {
			j--
		}
		if j == i {
			continue
		}
		genEnd := j
		for j > 0 && isDigit(data[j-1]) {
			j--
		}
		if n := genEnd - j; n < 1 || n > 5 {
			continue
		}
		genStart := j
		for j > 0 && isWS(data[j-1]) {
			j--
		}
		if j == genStart {
			continue
		}
		numEnd := j
		for j > 0 && isDigit(data[j-1]) {
			j--
		}
		if n := numEnd - j; n < 1 || n > 10 {
			continue
		}
		if j > 0 {
			if c := data[j-1]; c != '\r' && c != '\n' && c != '\t' && c != '\f' && c != ' ' && c != '>' && c != ']' {
				continue
			}
		}
		num, _ := strconv.Atoi(string(data[j:numEnd]))
		gen, _ := strconv.Atoi(string(data[genStart:genEnd]))
		hs = append(hs, header{start: j, end: i + 3, num: num, gen: gen})
	}
}

// trailerRef is a reference an old trailer or cross-reference stream gives for the new one.
var trailerRef = regexp.MustCompile(`/(Root|Info|Encrypt)\s*(\d+)\s+(\d+)\s+R`)

// trailerID is a trailer's /ID array of two strings.
var trailerID = regexp.MustCompile(`/ID\s*\[\s*(<[0-9A-Fa-f\s]*>|\([^)]*\))\s*(<[0-9A-Fa-f\s]*>|\([^)]*\))\s*\]`)

// maxRepairObjects bounds the objects a rebuilt table lists; an object number is also
// bounded by the file's size (each object takes bytes in it, in an object stream's index
// at least), so that a stray large number does not make a table of millions.
const maxRepairObjects = 8 << 20

// xrefEntry is where one object stands: at offset in the file, or the index-th of object
// stream stm.
type xrefEntry struct {
	offset     int
	stm, index int
	gen        int
	compressed bool
}

// rebuiltXref returns data with a cross-reference stream appended that lists every object
// found by scanning data (a later definition of an object number wins, as incremental
// updates append them, unless the file ends inside it, no "endobj" after it, and an
// earlier definition is whole: a file of pdfrw's static_pdfs, cut at 96 KiB inside a
// second copy of its last page's objects, read only the first lines the cut copy's content
// stream kept) and the objects inside object streams, and a trailer naming the
// catalogue. ok is false when no catalogue is found.
func rebuiltXref(data []byte) (out []byte, ok bool) {
	limit := min(maxRepairObjects, len(data)/4+64)
	entries := map[int]xrefEntry{}
	var catalog, catalogGen int = -1, 0
	lastEnd := bytes.LastIndex(data, []byte("endobj"))
	for _, h := range objectHeaders(data) {
		num, gen := h.num, h.gen
		if num <= 0 || num >= limit {
			continue
		}
		if _, found := entries[num]; found && h.start > lastEnd {
			continue // a copy cut short by the file's end: the whole one before it stands
		}
		entries[num] = xrefEntry{offset: h.start, gen: gen}
		head := data[h.end:min(len(data), h.end+1024)]
		if end := bytes.Index(head, []byte("stream")); end >= 0 {
			head = head[:end]
		}
		if catalogType.Match(head) {
			catalog, catalogGen = num, gen
		}
	}
	if len(entries) == 0 {
		return nil, false
	}
	// Objects inside object streams, where no direct definition of them was found.
	var direct []int
	for num := range entries {
		direct = append(direct, num)
	}
	slices.Sort(direct)
	for _, num := range direct {
		e := entries[num]
		for i, m := range objectStreamMembers(data, e.offset) {
			if _, direct := entries[m.num]; !direct && m.num < limit {
				entries[m.num] = xrefEntry{stm: num, index: i, compressed: true}
				if catalog < 0 && catalogType.Match(m.text) {
					catalog, catalogGen = m.num, 0
				}
			}
		}
	}
	refs := map[string]string{}
	for _, m := range trailerRef.FindAllSubmatch(trailerDicts(data), -1) {
		refs[string(m[1])] = string(m[2]) + " " + string(m[3]) + " R"
	}
	if _, found := refs["Root"]; !found || catalog >= 0 && !rootIsCatalog(refs["Root"], catalog) {
		if catalog < 0 {
			return nil, false
		}
		refs["Root"] = fmt.Sprintf("%d %d R", catalog, catalogGen)
	}
	size := 0
	for num := range entries {
		size = max(size, num+1)
	}
	var table bytes.Buffer
	for num := range size {
		e, found := entries[num]
		switch {
		case !found:
			table.Write([]byte{0, 0, 0, 0, 0, 0xff, 0xff})
		case e.compressed:
			table.Write([]byte{2, byte(e.stm >> 24), byte(e.stm >> 16), byte(e.stm >> 8), byte(e.stm), byte(e.index >> 8), byte(e.index)})
		default:
			table.Write([]byte{1, byte(e.offset >> 24), byte(e.offset >> 16), byte(e.offset >> 8), byte(e.offset), byte(e.gen >> 8), byte(e.gen)})
		}
	}
	if len(data) >= 1<<32 {
		return nil, false
	}
	out = make([]byte, 0, len(data)+table.Len()+256)
	out = append(out, data...)
	out = append(out, '\n')
	start := len(out)
	out = fmt.Appendf(out, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Length %d", size, size+1, table.Len()+7)
	for _, k := range []string{"Root", "Info", "Encrypt"} {
		if v, found := refs[k]; found {
			out = fmt.Appendf(out, " /%s %s", k, v)
		}
	}
	if m := trailerID.FindAllSubmatch(trailerDicts(data), -1); len(m) > 0 {
		last := m[len(m)-1]
		out = fmt.Appendf(out, " /ID [%s %s]", last[1], last[2])
	}
	out = append(out, " >>\nstream\n"...)
	out = append(out, table.Bytes()...)
	out = append(out, 1, byte(start>>24), byte(start>>16), byte(start>>8), byte(start), 0, 0) // this stream itself
	out = fmt.Appendf(out, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", start)
	return out, true
}

// catalogType is a dictionary's /Type /Catalog.
var catalogType = regexp.MustCompile(`/Type\s*/Catalog\b`)

// rootIsCatalog says whether a trailer's "N G R" names the catalogue found by the scan.
func rootIsCatalog(ref string, catalog int) bool {
	var num, gen int
	fmt.Sscanf(ref, "%d %d R", &num, &gen)
	return num == catalog
}

// trailerDicts is the text of the file's trailers and cross-reference streams' dictionaries,
// the last last, where the keys the new trailer copies stand.
func trailerDicts(data []byte) []byte {
	var out []byte
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte("trailer"))
		k := bytes.Index(data[i:], []byte("/XRef"))
		switch {
		case j < 0 && k < 0:
			return out
		case j < 0 || k >= 0 && k < j:
			// a cross-reference stream's dictionary: from its "obj" to its "stream"
			at := i + k
			from := max(0, at-512)
			if o := bytes.LastIndex(data[from:at], []byte("obj")); o >= 0 {
				from += o
			}
			to := min(len(data), at+1024)
			if s := bytes.Index(data[at:to], []byte("stream")); s >= 0 {
				to = at + s
			}
			out = append(append(out, data[from:to]...), '\n')
			i = at + len("/XRef")
		default:
			at := i + j
			to := min(len(data), at+2048)
			if s := bytes.Index(data[at:to], []byte("startxref")); s >= 0 {
				to = at + s
			}
			out = append(append(out, data[at:to]...), '\n')
			i = at + len("trailer")
		}
	}
}

// objStmHead is an object stream's dictionary: its /N members, starting at /First.
var (
	objStmType  = regexp.MustCompile(`/Type\s*/ObjStm\b`)
	objStmN     = regexp.MustCompile(`/N\s+(\d+)`)
	objStmFirst = regexp.MustCompile(`/First\s+(\d+)`)
)

// member is one object of an object stream: its number and its text.
type member struct {
	num  int
	text []byte
}

// objectStreamMembers returns the objects an object stream at offset holds, in order, or
// nil when the object there is not an object stream, Flate-compressed or stored as it is
// (qpdf's QDF files keep their object streams so: tiff-predictor.pdf, whose cross-reference
// stream the object reader cannot decode, lost the objects in its object stream).
func objectStreamMembers(data []byte, offset int) []member {
	head := data[offset:min(len(data), offset+1024)]
	s := bytes.Index(head, []byte("stream"))
	if e := bytes.Index(head, []byte("endobj")); e >= 0 && e < s {
		s = -1 // the object ends before: the stream is the next object's
	}
	if s < 0 || !objStmType.Match(head[:s]) {
		return nil
	}
	flate := bytes.Contains(head[:s], []byte("/FlateDecode"))
	if !flate && bytes.Contains(head[:s], []byte("/Filter")) {
		return nil
	}
	nm, fm := objStmN.FindSubmatch(head[:s]), objStmFirst.FindSubmatch(head[:s])
	if nm == nil || fm == nil {
		return nil
	}
	n, _ := strconv.Atoi(string(nm[1]))
	first, _ := strconv.Atoi(string(fm[1]))
	if n <= 0 || n > 1<<20 || first <= 0 || first > 1<<24 {
		return nil
	}
	body := offset + s + len("stream")
	if body < len(data) && data[body] == '\r' {
		body++
	}
	if body < len(data) && data[body] == '\n' {
		body++
	}
	// the index, and the members' text up to a bound: enough to find the catalogue
	bound := int64(first) + 1<<20
	var all []byte
	if flate {
		zr, err := zlib.NewReader(bytes.NewReader(data[body:]))
		if err != nil {
			return nil
		}
		all, _ = io.ReadAll(io.LimitReader(zr, bound))
	} else {
		all = data[body:min(int64(len(data)), int64(body)+bound)]
		if e := bytes.Index(all, []byte("endstream")); e >= 0 {
			all = all[:e]
		}
	}
	if len(all) < first {
		return nil
	}
	fields := bytes.Fields(all[:first])
	var ms []member
	var offs []int
	for i := 0; i+1 < len(fields) && len(ms) < n; i += 2 {
		num, err1 := strconv.Atoi(string(fields[i]))
		off, err2 := strconv.Atoi(string(fields[i+1]))
		if err1 != nil || err2 != nil || num <= 0 || off < 0 {
			break
		}
		ms = append(ms, member{num: num})
		offs = append(offs, first+off)
	}
	for i := range ms {
		from, to := min(offs[i], len(all)), len(all)
		if i+1 < len(offs) {
			to = min(max(offs[i+1], from), len(all))
		}
		ms[i].text = all[from:to]
	}
	return ms
}
