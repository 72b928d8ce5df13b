package pdftext

import (
	"slices"
	"strings"
	"unicode/utf16"
)

// cmap is a parsed CMap: its codespace (how many bytes each code takes) and what codes
// map to — Unicode text (a ToUnicode map) or CIDs (an encoding of a composite font).
type cmap struct {
	space  [4][]codeRange // codespace ranges by code length - 1
	chars  map[uint32]string
	cids   map[uint32]uint32
	ranges []mapRange // sorted by lo
	// base is the CMap this one builds on (usecmap, or a predefined CMap stored as its
	// differences from another): the codes this one leaves unmapped map by it.
	base *cmap
	// use is the name of the CMap a stream's usecmap names, "" when none.
	use string
	// vertical says the CMap's program sets /WMode 1 (vertical writing, vertical.go).
	vertical bool
}

// codeRange is a codespace range, byte by byte.
type codeRange struct{ lo, hi [4]byte }

// mapRange maps codes lo..hi of n bytes: to text starting at dst (its last UTF-16 unit
// counting up), to the texts of arr, or to CIDs from cid.
type mapRange struct {
	lo, hi uint32
	n      int
	dst    []uint16
	arr    []string
	cid    uint32
	isCID  bool
}

// mapsText says whether the map gives any code a text other than U+0000: one that maps
// codes to U+0000 alone gives no text.
func (m *cmap) mapsText() bool {
	for _, t := range m.chars {
		for _, r := range t {
			if r != 0 {
				return true
			}
		}
	}
	for _, r := range m.ranges {
		// a range counts up from its last unit
		if !r.isCID && (len(r.arr) > 0 || len(r.dst) > 1 || len(r.dst) == 1 && (r.dst[0] != 0 || r.hi > r.lo)) {
			return true
		}
	}
	return false
}

// maxCMapEntries bounds one CMap (a hostile one can list millions); maxCMapOperands the
// operands of one block: producers write thousands of entries to a block where the PDF
// reference asks for 100 at most (PyPDF2's merges: 1,821).
const (
	maxCMapEntries  = 1 << 20
	maxCMapOperands = 3 << 16
)

// cmapEnds are the keywords that close a CMap's blocks.
var cmapEnds = []string{"endcodespacerange", "endbfchar", "endbfrange", "endcidrange", "endcidchar"}

// gluedEnd is the block end kw starts with when the next token is written onto it without
// a space ("endbfcharendcmap", "endcodespacerange4": PdfPig's issue_1331.pdf, whose ToUnicode
// maps of Ü, ä, õ, ü were lost), as pdftotext reads them; else kw.
func gluedEnd(kw string) string {
	for _, k := range cmapEnds {
		if len(kw) > len(k) && strings.HasPrefix(kw, k) {
			return k
		}
	}
	return kw
}

// parseCMap reads a CMap stream.
func parseCMap(data []byte) *cmap {
	m := &cmap{chars: map[uint32]string{}, cids: map[uint32]uint32{}}
	l := &lexer{data: data}
	var stack []operand
	entries := 0
	for entries < maxCMapEntries {
		var op operand
		kw, isOp, ok := l.nextShallow(&op)
		if !ok {
			break
		}
		if !isOp {
			if len(stack) < maxCMapOperands {
				stack = append(stack, op)
			}
			continue
		}
		switch kw = gluedEnd(kw); kw {
		case "usecmap":
			if n := len(stack); n > 0 && stack[n-1].kind == kName {
				m.use = stack[n-1].str
			}
		case "def":
			if n := len(stack); n >= 2 && stack[n-2].kind == kName && stack[n-2].str == "WMode" && stack[n-1].kind == kNum {
				m.vertical = stack[n-1].num == 1
			}
		case "endcodespacerange":
			for i := 0; i+1 < len(stack); i += 2 {
				lo, hi := stack[i].str, stack[i+1].str
				if n := len(lo); n >= 1 && n <= 4 && len(hi) == n {
					var r codeRange
					copy(r.lo[:], lo)
					copy(r.hi[:], hi)
					m.space[n-1] = append(m.space[n-1], r)
				}
			}
		case "endbfchar":
			for i := 0; i+1 < len(stack); i += 2 {
				src, dst := stack[i], stack[i+1]
				if src.kind != kString || len(src.str) == 0 || len(src.str) > 4 {
					continue
				}
				text := ""
				if dst.kind == kString {
					text = utf16Text(units(dst.str))
				} else if dst.kind == kName {
					text = glyphText(dst.str)
				}
				m.chars[code(src.str)] = text
				entries++
			}
		case "endbfrange":
			for i := 0; i+2 < len(stack); i += 3 {
				lo, hi, dst := stack[i], stack[i+1], stack[i+2]
				r, ok := newRange(lo, hi)
				if !ok {
					continue
				}
				switch dst.kind {
				case kString:
					r.dst = units(dst.str)
				case kArray:
					for _, a := range dst.arr {
						r.arr = append(r.arr, utf16Text(units(a.str)))
					}
				default:
					continue
				}
				m.ranges = append(m.ranges, r)
				entries++
			}
		case "endcidrange":
			for i := 0; i+2 < len(stack); i += 3 {
				if r, ok := newRange(stack[i], stack[i+1]); ok {
					r.cid, r.isCID = uint32(stack[i+2].num), true
					m.ranges = append(m.ranges, r)
					entries++
				}
			}
		case "endcidchar":
			for i := 0; i+1 < len(stack); i += 2 {
				if s := stack[i].str; len(s) >= 1 && len(s) <= 4 {
					m.cids[code(s)] = uint32(stack[i+1].num)
					entries++
				}
			}
		}
		stack = stack[:0]
	}
	sortRanges(m.ranges)
	return m
}

// sortRanges sorts ranges by their first code, keeping the order of those that start alike.
func sortRanges(ranges []mapRange) {
	slices.SortStableFunc(ranges, func(a, b mapRange) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
}

func newRange(lo, hi operand) (mapRange, bool) {
	n := len(lo.str)
	if lo.kind != kString || hi.kind != kString || n == 0 || n > 4 || len(hi.str) != n {
		return mapRange{}, false
	}
	r := mapRange{lo: code(lo.str), hi: code(hi.str), n: n}
	return r, r.lo <= r.hi
}

// code is a big-endian code of 1–4 bytes.
func code(s string) uint32 {
	var c uint32
	for i := 0; i < len(s); i++ {
		c = c<<8 | uint32(s[i])
	}
	return c
}

// units reads UTF-16BE code units.
func units(s string) []uint16 {
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	if len(s)%2 == 1 { // a single byte: a code point of its own
		u = append(u, uint16(s[len(s)-1]))
	}
	return u
}

func utf16Text(u []uint16) string { return string(utf16.Decode(u)) }

// hasSpace says whether the CMap defines a codespace.
func (m *cmap) hasSpace() bool {
	for _, s := range m.space {
		if len(s) > 0 {
			return true
		}
	}
	return false
}

// next splits the first code off s: its value and length in bytes.
func (m *cmap) next(s string) (uint32, int) {
	for n := 1; n <= 4 && n <= len(s); n++ {
		for _, r := range m.space[n-1] {
			if inRange(r, s[:n]) {
				return code(s[:n]), n
			}
		}
	}
	// No range matches: take as many bytes as the shortest range (one when none).
	for n := 1; n <= 4; n++ {
		if len(m.space[n-1]) > 0 && n <= len(s) {
			return code(s[:n]), n
		}
	}
	return uint32(s[0]), 1
}

func inRange(r codeRange, s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < r.lo[i] || s[i] > r.hi[i] {
			return false
		}
	}
	return true
}

// find returns the range holding the n-byte code c.
func (m *cmap) find(c uint32, n int) *mapRange {
	i, _ := slices.BinarySearchFunc(m.ranges, c, func(r mapRange, c uint32) int {
		if r.lo <= c {
			return -1
		}
		return 1
	})
	// Ranges may overlap: look back from the last one starting at or before c.
	for j := i - 1; j >= 0 && j >= i-64; j-- {
		r := &m.ranges[j]
		if r.lo <= c && c <= r.hi && (r.n == n || n == 0) {
			return r
		}
	}
	return nil
}

// text is the Unicode text of the n-byte code c, and whether the map has it.
func (m *cmap) text(c uint32, n int) (string, bool) {
	t, ok := m.mapped(c, n)
	if t == "\uffff" || t == "\ufffe" || t == "\ufffd" {
		// Quartz maps the glyphs it has no character for (Computer Modern's ⟨ ⟩) to the
		// noncharacter U+FFFF, Adobe PDF Library a stylistic alternate (Solide Mirage's
		// "o.2" in its specimen, "S�N" in pdftotext's text) to U+FFFD, the replacement
		// character: no text, so that the font's encoding gives it ("SoN", not "SN")
		return "", false
	}
	return t, ok
}

// mapped is the map's own text of the n-byte code c, and whether it has one.
func (m *cmap) mapped(c uint32, n int) (string, bool) {
	if t, ok := m.chars[c]; ok {
		return t, true
	}
	r := m.find(c, n)
	switch {
	case r == nil || r.isCID:
		return "", false
	case r.arr != nil:
		if i := int(c - r.lo); i < len(r.arr) {
			return r.arr[i], true
		}
		return "", false
	case len(r.dst) == 1:
		v := r.dst[0] + uint16(c-r.lo)
		if v < 0x80 {
			return asciiText[v], true
		}
		if !utf16.IsSurrogate(rune(v)) {
			return string(rune(v)), true
		}
		return "\ufffd", true
	case len(r.dst) > 0:
		var buf [8]uint16
		u := append(buf[:0], r.dst...)
		u[len(u)-1] += uint16(c - r.lo)
		return utf16Text(u), true
	}
	return "", false
}

// asciiText holds the one-character strings of ASCII, which most ranges of most CMaps map
// to: a glyph's text costs no allocation.
var asciiText = func() (t [0x80]string) {
	for i := range t {
		t[i] = string(rune(i))
	}
	return t
}()

// useBase makes base the CMap this one uses: its codespace joins this one's, and the
// codes this one leaves unmapped map by it.
func (m *cmap) useBase(base *cmap) {
	if base == nil {
		return
	}
	m.base = base
	for n := range m.space {
		m.space[n] = append(m.space[n], base.space[n]...)
	}
}

// cid is the CID of the n-byte code c.
func (m *cmap) cid(c uint32, n int) (uint32, bool) {
	if v, ok := m.cids[c]; ok {
		return v, true
	}
	if r := m.find(c, n); r != nil && r.isCID {
		return r.cid + (c - r.lo), true
	}
	if m.base != nil {
		return m.base.cid(c, n)
	}
	return 0, false
}
