package pdftext

import "encoding/binary"

// gsubSources reads a font's glyph substitutions backwards (OpenType GSUB lookups of type 1,
// single, and 4, ligature, also inside type 7 extensions): for each glyph a substitution
// makes, the glyphs it is made from. A shaper draws such glyphs — a vowel sign's form for a
// position, a ligature — which have no character of their own in the cmap; their sources
// say what they spell. Bounded by the table: every offset is checked.
func gsubSources(gsub []byte) map[uint16][]uint16 {
	t := otTable(gsub)
	if len(gsub) < 10 {
		return nil
	}
	out := map[uint16][]uint16{}
	lookups := t.u16(8)
	budget := maxGSUBSubtables
	for i := range t.u16(lookups) {
		lookup := lookups + t.u16(lookups+2+2*i)
		kind := t.u16(lookup)
		for j := range t.u16(lookup + 4) {
			if budget--; budget < 0 {
				return out
			}
			sub, k := lookup+t.u16(lookup+6+2*j), kind
			if k == 7 {
				k = t.u16(sub + 2)
				sub += t.u32(sub + 4)
			}
			switch k {
			case 1:
				t.single(sub, out)
			case 4:
				t.ligatures(sub, out)
			}
			if len(out) > 1<<16 {
				return out
			}
		}
	}
	return out
}

// maxGSUBSubtables bounds the subtables gsubSources reads: real fonts have hundreds, a
// damaged table's counts (read as up to 65,535 lookups of 65,535 subtables) would take
// seconds.
const maxGSUBSubtables = 1 << 14

// otTable reads big-endian values of an OpenType table; out of range reads as 0.
type otTable []byte

func (t otTable) u16(off int) int {
	if off < 0 || off+2 > len(t) {
		return 0
	}
	return int(binary.BigEndian.Uint16(t[off:]))
}

func (t otTable) u32(off int) int {
	if off < 0 || off+4 > len(t) {
		return 0
	}
	return int(binary.BigEndian.Uint32(t[off:]) & 0x7FFFFFFF)
}

// coverage lists a Coverage table's glyphs in order.
func (t otTable) coverage(off int) []uint16 {
	var out []uint16
	switch t.u16(off) {
	case 1:
		for i := range min(t.u16(off+2), len(t)/2) {
			out = append(out, uint16(t.u16(off+4+2*i)))
		}
	case 2:
		for i := range min(t.u16(off+2), len(t)/6) {
			lo, hi := t.u16(off+4+6*i), t.u16(off+6+6*i)
			for g := lo; g <= hi && len(out) < 1<<16; g++ {
				out = append(out, uint16(g))
			}
		}
	}
	return out
}

// single reads a single substitution: glyph → its replacement.
func (t otTable) single(off int, out map[uint16][]uint16) {
	cov := t.coverage(off + t.u16(off+2))
	switch t.u16(off) {
	case 1:
		delta := int16(t.u16(off + 4))
		for _, g := range cov {
			to := uint16(int(g) + int(delta))
			if _, ok := out[to]; !ok {
				out[to] = []uint16{g}
			}
		}
	case 2:
		for i, g := range cov {
			if i >= t.u16(off+4) {
				break
			}
			to := uint16(t.u16(off + 6 + 2*i))
			if _, ok := out[to]; !ok {
				out[to] = []uint16{g}
			}
		}
	}
}

// ligatures reads a ligature substitution: the first glyph and the components after it →
// the ligature.
func (t otTable) ligatures(off int, out map[uint16][]uint16) {
	cov := t.coverage(off + t.u16(off+2))
	for i, first := range cov {
		if i >= t.u16(off+4) {
			break
		}
		set := off + t.u16(off+6+2*i)
		for j := range t.u16(set) {
			lig := set + t.u16(set+2+2*j)
			to := uint16(t.u16(lig))
			n := t.u16(lig + 2)
			if n == 0 || n > 16 {
				continue
			}
			from := []uint16{first}
			for k := 1; k < n; k++ {
				from = append(from, uint16(t.u16(lig+2+2*k)))
			}
			if _, ok := out[to]; !ok {
				out[to] = from
			}
		}
	}
}

// substitutedText gives glyphs made by substitutions the text of the glyphs they are made
// from, where those have text (a few rounds, for substitutions of substitutions).
func substitutedText(byGlyph map[uint16]string, sources map[uint16][]uint16) {
	for range 4 {
		added := false
		for to, from := range sources {
			if _, ok := byGlyph[to]; ok {
				continue
			}
			text, ok := "", true
			for _, g := range from {
				s, found := byGlyph[g]
				ok = ok && found
				text += s
			}
			if ok && text != "" {
				byGlyph[to] = text
				added = true
			}
		}
		if !added {
			return
		}
	}
}
