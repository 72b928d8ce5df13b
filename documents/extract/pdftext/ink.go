package pdftext

import (
	"encoding/binary"

	"github.com/ledongthuc/pdf"
)

// Marks drawn without advance (Arabic harakat, Hebrew points) are placed by their outline,
// not their origin: a font may draw a fatha's ink left of its origin, and a producer put that
// origin inside the next letter. Where the font is embedded as TrueType, its glyf table says
// where each glyph's ink lies (xMin, xMax); a mark is then taken to stand at its ink's middle
// (show moves its x there), which lies over the letter it is drawn on whatever the producer.

// inkBoxes holds a TrueType font's glyph extents across the advance: glyf's xMin and xMax
// per glyph, in em.
type inkBoxes struct {
	glyf, loca []byte
	longLoca   bool
	unitsPerEm float64
	gids       []byte // CIDToGIDMap, two bytes a CID; nil for Identity
}

// middle is the middle of glyph cid's ink along its advance, in em from its origin; false
// when the font does not say (no outline, out of range).
func (b *inkBoxes) middle(cid uint32) (float64, bool) {
	if b == nil || b.unitsPerEm <= 0 {
		return 0, false
	}
	gid := uint64(cid)
	if b.gids != nil {
		if 2*gid+1 >= uint64(len(b.gids)) {
			return 0, false
		}
		gid = uint64(binary.BigEndian.Uint16(b.gids[2*gid:]))
	}
	var start, end uint64
	if b.longLoca {
		if 4*gid+8 > uint64(len(b.loca)) {
			return 0, false
		}
		start, end = uint64(binary.BigEndian.Uint32(b.loca[4*gid:])), uint64(binary.BigEndian.Uint32(b.loca[4*gid+4:]))
	} else {
		if 2*gid+4 > uint64(len(b.loca)) {
			return 0, false
		}
		start, end = 2*uint64(binary.BigEndian.Uint16(b.loca[2*gid:])), 2*uint64(binary.BigEndian.Uint16(b.loca[2*gid+2:]))
	}
	if end < start+10 || end > uint64(len(b.glyf)) {
		return 0, false
	}
	g := b.glyf[start:]
	xMin, xMax := int16(binary.BigEndian.Uint16(g[2:])), int16(binary.BigEndian.Uint16(g[6:]))
	if xMax < xMin {
		return 0, false
	}
	return (float64(xMin) + float64(xMax)) / 2 / b.unitsPerEm, true
}

// trueTypeInk reads the glyph extents of a CIDFontType2 font's embedded TrueType program;
// nil when it has none or they cannot be read.
func (r *reader) trueTypeInk(d pdf.Value) *inkBoxes {
	ff := d.Key("FontDescriptor").Key("FontFile2")
	if ff.Kind() != pdf.Stream {
		return nil
	}
	data, err := r.stream(ff, "a font")
	if err != nil {
		return nil
	}
	b := inkOf(data)
	if b == nil {
		return nil
	}
	if m := d.Key("CIDToGIDMap"); m.Kind() == pdf.Stream {
		if b.gids, err = r.stream(m, "a CIDToGIDMap"); err != nil {
			return nil
		}
	}
	return b
}

// inkOf reads the glyph extents of a TrueType program: nil without head, loca and glyf.
func inkOf(data []byte) *inkBoxes {
	t := sfntTables(data)
	head := t["head"]
	if len(head) < 54 || t["glyf"] == nil || t["loca"] == nil {
		return nil
	}
	return &inkBoxes{
		glyf: t["glyf"], loca: t["loca"],
		longLoca:   binary.BigEndian.Uint16(head[50:]) == 1,
		unitsPerEm: float64(binary.BigEndian.Uint16(head[18:])),
	}
}
