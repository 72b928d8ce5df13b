package pdftext

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/ascii85"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// Stream filters the object reader does not know. It decodes Flate and ASCII85 only and
// refuses a stream with any other filter, so a file whose content streams are LZW-coded
// (Acrobat Distiller 2 and 3, QuarkXPress and PageMaker files of the 1990s: PDFTron's
// newsletter.pdf) read as damaged, though pdftotext reads it. For such a stream the raw
// data are taken from the file (the object reader names a stream's offset in its String)
// and decoded here, each stage a reader, so the budgets (Options.Limit) bound the output.

// errFilter is a stream this file's filters cannot decode either.
var errFilter = errors.New("unknown stream filter")

// ownFilters reports whether v's filters are to be decoded here: it names one the object
// reader does not know (the abbreviations of inline images among them, which poppler takes
// in any stream: "A85", "Fl"), or gives /Predictor 1 ("none", which the object reader refuses with
// a panic, "pred": AutoCAD's PDFs, pdf.js's Test-plusminus.pdf), and the file is not
// encrypted (the object reader decrypts).
func (r *reader) ownFilters(v pdf.Value) bool {
	names := filterNames(v.Key("Filter"))
	for _, n := range names {
		switch n {
		case "LZWDecode", "LZW", "ASCIIHexDecode", "AHx", "RunLengthDecode", "RL", "A85", "Fl":
			return r.pdf.Trailer().Key("Encrypt").Kind() == pdf.Null
		}
	}
	for _, f := range streamFilters(v) {
		if f.predictor == 1 {
			return r.pdf.Trailer().Key("Encrypt").Kind() == pdf.Null
		}
	}
	return false
}

func filterNames(f pdf.Value) []string {
	switch f.Kind() {
	case pdf.Name:
		return []string{f.Name()}
	case pdf.Array:
		var out []string
		for i := 0; i < f.Len(); i++ {
			out = append(out, f.Index(i).Name())
		}
		return out
	}
	return nil
}

// rawStream is v's data as the file holds them, before its filters.
// Where its /Length does not end the data, they run to its "endstream" (streamlen.go).
func (r *reader) rawStream(v pdf.Value) ([]byte, error) {
	off, ok := streamOffset(v)
	if !ok {
		return nil, fmt.Errorf("%w: no stream offset", errFilter)
	}
	n, _ := storedLength(r.data, off, v.Key("Length"))
	if off < 0 || n < 0 || off > int64(len(r.data)) {
		return nil, fmt.Errorf("%w: stream outside the file", errFilter)
	}
	return r.data[off:min(off+n, int64(len(r.data)))], nil
}

// streamOffset is where v's data start in the file, as the object reader names it in v's
// String ("…@offset").
func streamOffset(v pdf.Value) (int64, bool) {
	s := v.String()
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return 0, false
	}
	off, err := strconv.ParseInt(s[at+1:], 10, 64)
	return off, err == nil
}

// decodeFilters returns a reader of raw decoded by v's filters, in their order.
func decodeFilters(raw []byte, v pdf.Value) (io.Reader, error) {
	var rd io.Reader = bytes.NewReader(raw)
	for _, f := range streamFilters(v) {
		if f.predictor > 1 {
			return nil, fmt.Errorf("%w: %s with predictor %d", errFilter, f.name, f.predictor)
		}
		next, ok, err := decodeStage(rd, f)
		switch {
		case !ok:
			return nil, fmt.Errorf("%w: %s", errFilter, f.name)
		case err != nil:
			return nil, decodeError{err}
		}
		rd = next
	}
	return rd, nil
}

// streamFilters is v's filters in their order, each with the decode parameters it reads.
func streamFilters(v pdf.Value) []filter {
	names, params := v.Key("Filter"), v.Key("DecodeParms")
	var out []filter
	for i, name := range filterNames(names) {
		param := params
		if names.Kind() == pdf.Array {
			param = params.Index(i)
		}
		out = append(out, filterOf(name, param))
	}
	return out
}

// decodeStage puts r through f when f is one of the general filters content streams and
// images share (Flate, LZW, ASCIIHex, ASCII85, run-length; predictors are the caller's);
// ok is false for any other.
func decodeStage(r io.Reader, f filter) (out io.Reader, ok bool, err error) {
	switch f.name {
	case "FlateDecode", "Fl":
		zr, err := zlib.NewReader(r)
		return zr, true, err
	case "LZWDecode", "LZW":
		return newLZWReader(bufio.NewReader(r), f.earlyChange), true, nil
	case "ASCIIHexDecode", "AHx":
		return &hexReader{r: bufio.NewReader(r)}, true, nil
	case "ASCII85Decode", "A85":
		return ascii85.NewDecoder(&cleanReader{r: bufio.NewReader(r), end: '~'}), true, nil
	case "RunLengthDecode", "RL":
		return &runLengthReader{r: bufio.NewReader(r)}, true, nil
	}
	return nil, false, nil
}

// cleanReader passes r's bytes but white space, up to end (ASCII85's "~>").
type cleanReader struct {
	r    *bufio.Reader
	end  byte
	done bool
}

func (c *cleanReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		b, err := c.r.ReadByte()
		if c.done || err != nil || b == c.end {
			c.done = true
			if n > 0 {
				return n, nil
			}
			return 0, io.EOF
		}
		if !isSpace(b) {
			p[n] = b
			n++
		}
	}
	return n, nil
}

// hexReader decodes ASCIIHexDecode: hex digits, white space skipped, up to ">"; an odd
// last digit is followed by 0.
type hexReader struct {
	r    *bufio.Reader
	done bool
}

func (h *hexReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && !h.done {
		var pair [2]int
		k := 0
		for k < 2 {
			b, err := h.r.ReadByte()
			if err != nil || b == '>' {
				h.done = true
				break
			}
			if d := hexDigit(b); d >= 0 {
				pair[k] = d
				k++
			} else if !isSpace(b) {
				return n, decodeError{fmt.Errorf("ASCIIHexDecode: bad byte %q", b)}
			}
		}
		if k > 0 {
			p[n] = byte(pair[0]<<4 | pair[1])
			n++
		}
	}
	if n == 0 && h.done {
		return 0, io.EOF
	}
	return n, nil
}

func hexDigit(b byte) int {
	switch {
	case b >= '0' && b <= '9':
		return int(b - '0')
	case b >= 'a' && b <= 'f':
		return int(b-'a') + 10
	case b >= 'A' && b <= 'F':
		return int(b-'A') + 10
	}
	return -1
}

// runLengthReader decodes RunLengthDecode: a length byte n, then n+1 bytes to copy (n <
// 128) or one byte to repeat 257-n times (n > 128); 128 ends the data.
type runLengthReader struct {
	r       *bufio.Reader
	copyN   int  // bytes still to copy
	repeatN int  // times still to repeat b
	b       byte // the byte repeated
	done    bool
}

func (rl *runLengthReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case rl.repeatN > 0:
			p[n] = rl.b
			rl.repeatN--
			n++
			continue
		case rl.copyN > 0:
			b, err := rl.r.ReadByte()
			if err != nil {
				rl.done, rl.copyN = true, 0
				continue
			}
			p[n] = b
			rl.copyN--
			n++
			continue
		case rl.done:
			if n > 0 {
				return n, nil
			}
			return 0, io.EOF
		}
		l, err := rl.r.ReadByte()
		switch {
		case err != nil || l == 128:
			rl.done = true
		case l < 128:
			rl.copyN = int(l) + 1
		default:
			b, err := rl.r.ReadByte()
			if err != nil {
				rl.done = true
				continue
			}
			rl.b, rl.repeatN = b, 257-int(l)
		}
	}
	return n, nil
}

// lzwReader decodes LZWDecode (ISO 32000-1 §7.4.4): codes of 9 to 12 bits, the most
// significant bit first; 256 clears the table, 257 ends the data. With early change (1,
// the default, as TIFF's) a code grows a bit one entry before the table needs it.
type lzwReader struct {
	r      *bufio.Reader
	early  int
	acc    uint32 // bits read but not used, the oldest highest
	nbits  uint
	width  uint
	next   int // the next table entry
	prev   int // the last code, -1 after a clear
	prefix [4096]uint16
	last   [4096]byte // an entry's last byte
	first  [4096]byte // and its first
	length [4096]uint16
	out    []byte // decoded, not yet read
	buf    [4096]byte
	done   bool
}

func newLZWReader(r *bufio.Reader, early int) *lzwReader {
	z := &lzwReader{r: r, early: early, width: 9, next: 258, prev: -1}
	for i := range 256 {
		z.last[i], z.first[i], z.length[i] = byte(i), byte(i), 1
	}
	return z
}

func (z *lzwReader) code() (int, bool) {
	for z.nbits < z.width {
		b, err := z.r.ReadByte()
		if err != nil {
			return 0, false
		}
		z.acc = z.acc<<8 | uint32(b)
		z.nbits += 8
	}
	z.nbits -= z.width
	c := int(z.acc>>z.nbits) & (1<<z.width - 1)
	z.acc &= 1<<z.nbits - 1
	return c, true
}

// spell writes code's bytes into z.buf and returns them.
func (z *lzwReader) spell(code int) []byte {
	n := int(z.length[code])
	s := z.buf[:n]
	for i := n - 1; i >= 0; i-- {
		s[i] = z.last[code]
		code = int(z.prefix[code])
	}
	return s
}

func (z *lzwReader) Read(p []byte) (int, error) {
	for len(z.out) == 0 {
		if z.done {
			return 0, io.EOF
		}
		if err := z.step(); err != nil {
			z.done = true
			return 0, err
		}
	}
	n := copy(p, z.out)
	z.out = z.out[n:]
	return n, nil
}

// step decodes one code into z.out.
func (z *lzwReader) step() error {
	c, ok := z.code()
	if !ok || c == 257 {
		z.done = true
		return nil
	}
	if c == 256 {
		z.width, z.next, z.prev = 9, 258, -1
		return nil
	}
	if z.prev < 0 {
		if c > 255 {
			return decodeError{fmt.Errorf("LZWDecode: code %d after a clear", c)}
		}
		z.out, z.prev = z.spell(c), c
		return nil
	}
	var first byte
	switch {
	case c < z.next && (c < 256 || c > 257):
		first = z.first[c]
	case c == z.next:
		first = z.first[z.prev]
	default:
		return decodeError{fmt.Errorf("LZWDecode: code %d past the table", c)}
	}
	if z.next < 4096 {
		e := z.next
		z.prefix[e], z.last[e], z.first[e] = uint16(z.prev), first, z.first[z.prev]
		z.length[e] = min(z.length[z.prev]+1, 4096)
		z.next++
		if z.next+z.early >= 1<<z.width && z.width < 12 {
			z.width++
		}
	}
	if c >= z.next { // the table is full and the code is past it
		return decodeError{fmt.Errorf("LZWDecode: code %d past a full table", c)}
	}
	z.out, z.prev = z.spell(c), c
	return nil
}
