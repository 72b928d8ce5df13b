package pdftext

import "encoding/binary"

// sfntTables finds the tables of a TrueType font program: tag → its bytes.
func sfntTables(data []byte) map[string][]byte {
	if len(data) < 12 {
		return nil
	}
	n := int(binary.BigEndian.Uint16(data[4:]))
	tables := map[string][]byte{}
	for i := range n {
		rec := 12 + 16*i
		if rec+16 > len(data) {
			break
		}
		off, size := binary.BigEndian.Uint32(data[rec+8:]), binary.BigEndian.Uint32(data[rec+12:])
		if uint64(off)+uint64(size) <= uint64(len(data)) {
			tables[string(data[rec:rec+4])] = data[off : off+size]
		}
	}
	return tables
}

// trueTypeCodeNames names the glyphs a simple TrueType font's one-byte codes draw, by the
// font program's own tables: its symbol or Macintosh cmap (code → glyph, the map a PDF
// reader draws such codes by) and its PostScript names (post format 2). Quartz embeds
// subsets so, without a ToUnicode entry for their alternate glyphs ("uni17CC.alt",
// "uni178017B6.dotted"), whose names still say what they spell. Codes without a name are
// "".
func trueTypeCodeNames(data []byte) (names [256]string, ok bool) {
	tables := sfntTables(data)
	glyphs, found := codeGlyphs(tables["cmap"])
	post := postNames(tables["post"])
	if !found || post == nil {
		return names, false
	}
	for c, g := range glyphs {
		if g > 0 && int(g) < len(post) {
			names[c] = post[g]
			ok = ok || post[g] != ""
		}
	}
	return names, ok
}

// codeGlyphs reads the glyph of each one-byte code from a cmap's (3,0) symbol subtable
// (codes at 0xF000+c, or at c) or else its (1,0) Macintosh one; formats 0, 4 and 6.
func codeGlyphs(cmap []byte) (glyphs [256]uint16, ok bool) {
	if len(cmap) < 4 {
		return glyphs, false
	}
	var sym, mac []byte
	n := int(binary.BigEndian.Uint16(cmap[2:]))
	for i := range n {
		rec := 4 + 8*i
		if rec+8 > len(cmap) {
			break
		}
		pid, eid := binary.BigEndian.Uint16(cmap[rec:]), binary.BigEndian.Uint16(cmap[rec+2:])
		off := binary.BigEndian.Uint32(cmap[rec+4:])
		if uint64(off)+6 > uint64(len(cmap)) {
			continue
		}
		switch {
		case pid == 3 && eid == 0:
			sym = cmap[off:]
		case pid == 1 && eid == 0:
			mac = cmap[off:]
		}
	}
	sub, bases := mac, []int{0}
	if sym != nil {
		sub, bases = sym, []int{0xF000, 0}
	}
	if sub == nil {
		return glyphs, false
	}
	for c := range glyphs {
		for _, base := range bases {
			if g := subtableGlyph(sub, base+c); g != 0 {
				glyphs[c] = g
				ok = true
				break
			}
		}
	}
	return glyphs, ok
}

// subtableGlyph looks a code up in a cmap subtable of format 0, 4 or 6; 0 when not there.
func subtableGlyph(t []byte, code int) uint16 {
	u16 := func(i int) int {
		if i < 0 || i+2 > len(t) {
			return 0
		}
		return int(binary.BigEndian.Uint16(t[i:]))
	}
	switch u16(0) {
	case 0:
		if code < 256 && 6+code < len(t) {
			return uint16(t[6+code])
		}
	case 4:
		segs := u16(6) / 2
		ends, starts := 14, 16+2*segs
		deltas, ranges := starts+2*segs, starts+4*segs
		for s := range segs {
			if code > u16(ends+2*s) || code < u16(starts+2*s) {
				continue
			}
			ro := u16(ranges + 2*s)
			if ro == 0 {
				return uint16(code + u16(deltas+2*s))
			}
			g := u16(ranges + 2*s + ro + 2*(code-u16(starts+2*s)))
			if g == 0 {
				return 0
			}
			return uint16(g + u16(deltas+2*s))
		}
	case 6:
		first, count := u16(6), u16(8)
		if code >= first && code < first+count {
			return uint16(u16(10 + 2*(code-first)))
		}
	}
	return 0
}

// postNames reads the glyph names of a post table of format 2: Macintosh standard names by
// number below 258 (only .notdef and space are kept: what matters here is the font's own
// names), the table's Pascal strings above.
func postNames(post []byte) []string {
	if len(post) < 34 || binary.BigEndian.Uint32(post) != 0x00020000 {
		return nil
	}
	n := int(binary.BigEndian.Uint16(post[32:]))
	if 34+2*n > len(post) {
		return nil
	}
	var strs []string
	for p := 34 + 2*n; p < len(post); {
		l := int(post[p])
		if p+1+l > len(post) {
			break
		}
		strs = append(strs, string(post[p+1:p+1+l]))
		p += 1 + l
	}
	names := make([]string, n)
	for g := range n {
		switch i := int(binary.BigEndian.Uint16(post[34+2*g:])); {
		case i == 3:
			names[g] = "space"
		case i >= 258 && i-258 < len(strs):
			names[g] = strs[i-258]
		}
	}
	return names
}
