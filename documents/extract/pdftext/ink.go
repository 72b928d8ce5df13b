package pdftext

import (
	"encoding/binary"
	"math"

	"github.com/ledongthuc/pdf"
)

// Marks drawn without advance (Arabic harakat, Hebrew points) are placed by their outline,
// not their origin: a font may draw a fatha's ink left of its origin, and a producer put that
// origin inside the next letter. Where the font is embedded as TrueType, its glyf table says
// where each glyph's ink lies (xMin, xMax); a mark is then taken to stand at its ink's middle
// (show moves its x there), which lies over the letter it is drawn on whatever the producer.

// inkBoxes holds the middle of each glyph's ink along its advance (glyf's xMin and xMax),
// in em, NaN for glyphs without an outline; 4 bytes a glyph, the font program not kept.
type inkBoxes struct {
	mids []float32
	gids []byte // CIDToGIDMap, two bytes a CID; nil for Identity
}

// middle is the middle of glyph cid's ink along its advance, in em from its origin; false
// when the font does not say (no outline, out of range).
func (b *inkBoxes) middle(cid uint32) (float64, bool) {
	if b == nil {
		return 0, false
	}
	gid := uint64(cid)
	if b.gids != nil {
		if 2*gid+1 >= uint64(len(b.gids)) {
			return 0, false
		}
		gid = uint64(binary.BigEndian.Uint16(b.gids[2*gid:]))
	}
	if gid >= uint64(len(b.mids)) || b.mids[gid] != b.mids[gid] { // out of range, NaN
		return 0, false
	}
	return float64(b.mids[gid]), true
}

// trueTypeInk reads the glyph extents of a CIDFontType2 font's embedded TrueType program;
// nil when it has none or they cannot be read.
func (r *reader) trueTypeInk(d pdf.Value) *inkBoxes {
	data := r.trueTypeProgram(d.Key("FontDescriptor"))
	if data == nil {
		return nil
	}
	b := inkOf(data)
	if b == nil {
		return nil
	}
	if m := d.Key("CIDToGIDMap"); m.Kind() == pdf.Stream {
		var err error
		if b.gids, err = r.stream(m, "a CIDToGIDMap"); err != nil {
			return nil
		}
	}
	return b
}

// inkOf reads the glyph extents of a TrueType program: nil without head, loca and glyf.
func inkOf(data []byte) *inkBoxes {
	t := sfntTables(data)
	head, loca, glyf := t["head"], t["loca"], t["glyf"]
	if len(head) < 54 || glyf == nil || loca == nil {
		return nil
	}
	long := binary.BigEndian.Uint16(head[50:]) == 1
	upem := float32(binary.BigEndian.Uint16(head[18:]))
	if upem <= 0 {
		return nil
	}
	n := len(loca)/2 - 1
	if long {
		n = len(loca)/4 - 1
	}
	n = min(max(n, 0), 1<<16)
	b := &inkBoxes{mids: make([]float32, n)}
	nan := float32(math.NaN())
	for g := range n {
		var start, end uint64
		if long {
			start, end = uint64(binary.BigEndian.Uint32(loca[4*g:])), uint64(binary.BigEndian.Uint32(loca[4*g+4:]))
		} else {
			start, end = 2*uint64(binary.BigEndian.Uint16(loca[2*g:])), 2*uint64(binary.BigEndian.Uint16(loca[2*g+2:]))
		}
		b.mids[g] = nan
		if end < start+10 || end > uint64(len(glyf)) {
			continue
		}
		xMin, xMax := int16(binary.BigEndian.Uint16(glyf[start+2:])), int16(binary.BigEndian.Uint16(glyf[start+6:]))
		if xMax >= xMin {
			b.mids[g] = (float32(xMin) + float32(xMax)) / 2 / upem
		}
	}
	return b
}
