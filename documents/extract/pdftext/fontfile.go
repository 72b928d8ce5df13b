package pdftext

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"sync"

	"codeberg.org/go-pdf/fpdf"
	"github.com/ledongthuc/pdf"
	"golang.org/x/image/font/sfnt"
)

// programNames is the encoding built into an embedded font program, code → glyph name;
// nil when there is none to read (or it is StandardEncoding, which the caller falls back
// to).
func (r *reader) programNames(desc pdf.Value) *[256]string {
	if ff := desc.Key("FontFile"); ff.Kind() == pdf.Stream {
		data, err := r.stream(ff, "a font")
		if err != nil {
			return nil
		}
		if n := int(ff.Key("Length1").Int64()); n > 0 && n < len(data) {
			data = data[:n] // the clear-text part, where the encoding is
		}
		return type1Names(data)
	}
	if ff := desc.Key("FontFile3"); ff.Kind() == pdf.Stream && ff.Key("Subtype").Name() == "Type1C" {
		data, err := r.stream(ff, "a font")
		if err != nil {
			return nil
		}
		return cffNames(data)
	}
	return nil
}

// namesText is the text of each code of an encoding given by glyph names; nil for nil.
func namesText(names *[256]string) *encoding {
	if names == nil {
		return nil
	}
	var e encoding
	for c, n := range names {
		if n != "" {
			e[c] = glyphText(n)
		}
	}
	return &e
}

// type1Encoding is the text of each code of a Type 1 font program's own encoding.
func type1Encoding(data []byte) *encoding { return namesText(type1Names(data)) }

// type1Names reads "/Encoding 256 array … dup 65 /A put … readonly def" from the clear
// text of a Type 1 font program: the glyph name of each code.
func type1Names(data []byte) *[256]string {
	i := bytes.Index(data, []byte("/Encoding"))
	if i < 0 {
		return nil
	}
	rest := data[i+len("/Encoding"):]
	if j := bytes.Index(rest, []byte("def")); j >= 0 && bytes.Contains(rest[:j], []byte("StandardEncoding")) {
		return nil
	}
	if j := bytes.Index(rest, []byte("readonly def")); j >= 0 {
		rest = rest[:j]
	} else if j := bytes.Index(rest, []byte("eexec")); j >= 0 {
		rest = rest[:j]
	}
	var e [256]string
	found := false
	f := strings.Fields(string(rest))
	for k := 0; k+3 < len(f); k++ {
		if f[k] != "dup" || !strings.HasPrefix(f[k+2], "/") || f[k+3] != "put" {
			continue
		}
		c, err := strconv.Atoi(f[k+1])
		if err != nil || c < 0 || c > 255 {
			continue
		}
		e[c] = f[k+2][1:]
		found = true
	}
	if !found {
		return nil
	}
	return &e
}

// nameTrueTypeCodes gives the codes of a symbolic TrueType font that have no text yet
// (none in its ToUnicode map, which alone gives such a font's text) the text of the glyph
// names they draw in the embedded font program.
func (r *reader) nameTrueTypeCodes(f *font, desc pdf.Value) {
	data := r.trueTypeProgram(desc)
	if data == nil {
		return
	}
	names, ok := trueTypeCodeNames(data)
	if !ok {
		return
	}
	for c, name := range names {
		if name == "" || f.text[c] != "" || f.toUnicodeMaps(c) {
			continue
		}
		f.text[c] = glyphText(name)
	}
}

// toUnicodeMaps says whether the font's ToUnicode map gives code c a text.
func (f *font) toUnicodeMaps(c int) bool {
	if f.toUni == nil {
		return false
	}
	_, mapped := f.toUni.text(uint32(c), 1)
	return mapped
}

// blankVisibleSpaces reads as a space each code of a TrueType font whose text is "␣" (the
// glyph name visiblespace) but whose glyph in the embedded program has no outline: PrimoPDF
// names the word space of its subsets so (Washra's Ethiopic test, where other subsets of
// the same font map that code to U+0020), while TeX's T1 fonts draw a real ␣ there.
func (r *reader) blankVisibleSpaces(f *font, desc pdf.Value) {
	var codes []int
	for c, t := range f.text {
		if t == "\u2423" && !f.toUnicodeMaps(c) {
			codes = append(codes, c)
		}
	}
	if len(codes) == 0 {
		return
	}
	data := r.trueTypeProgram(desc)
	if data == nil {
		return
	}
	tables := sfntTables(data)
	glyphs, ok := codeGlyphs(tables["cmap"])
	if !ok {
		return
	}
	for _, c := range codes {
		if g := glyphs[c]; g > 0 && emptyGlyph(tables, g) {
			f.text[c] = " "
		}
	}
}

// emptyGlyph says whether glyph g of a TrueType program's tables has no outline (its loca
// entries equal: a space); false when the tables cannot say.
func emptyGlyph(tables map[string][]byte, g uint16) bool {
	head, loca := tables["head"], tables["loca"]
	if len(head) < 54 || tables["glyf"] == nil {
		return false
	}
	i := int(g)
	if binary.BigEndian.Uint16(head[50:]) == 1 {
		if 4*i+8 > len(loca) {
			return false
		}
		return binary.BigEndian.Uint32(loca[4*i:]) == binary.BigEndian.Uint32(loca[4*i+4:])
	}
	if 2*i+4 > len(loca) {
		return false
	}
	return binary.BigEndian.Uint16(loca[2*i:]) == binary.BigEndian.Uint16(loca[2*i+2:])
}

// trueTypeProgram is the embedded TrueType program (FontFile2) of font descriptor desc; nil
// when it has none or it cannot be read.
func (r *reader) trueTypeProgram(desc pdf.Value) []byte {
	ff := desc.Key("FontFile2")
	if ff.Kind() != pdf.Stream {
		return nil
	}
	data, err := r.stream(ff, "a font")
	if err != nil {
		return nil
	}
	return data
}

// trueTypeText maps the CIDs of a CIDFontType2 font to text, by the embedded TrueType font's
// Unicode cmap, read backwards (CID to glyph by CIDToGIDMap), and its glyph substitutions
// (gsub.go) for glyphs the cmap does not reach; a program without cmap or post table, by
// the standard order of its glyphs where its advances show that order (glyphorder.go).
func (r *reader) trueTypeText(d pdf.Value) map[uint32]string {
	data := r.trueTypeProgram(d.Key("FontDescriptor"))
	if data == nil {
		return nil
	}
	if byOrder := standardOrderText(sfntTables(data)); byOrder != nil {
		byGlyph := make(map[sfnt.GlyphIndex]string, len(byOrder))
		for g, t := range byOrder {
			byGlyph[sfnt.GlyphIndex(g)] = t
		}
		return r.cidsText(d, byGlyph)
	}
	fnt, err := sfnt.Parse(data)
	if err != nil {
		return nil
	}
	var buf sfnt.Buffer
	byGlyph := map[sfnt.GlyphIndex]string{}
	for c := rune(0x20); c < 0x10000; c++ {
		if c >= 0xD800 && c < 0xE000 {
			continue
		}
		if g, err := fnt.GlyphIndex(&buf, c); err == nil && g != 0 {
			if _, ok := byGlyph[g]; !ok {
				byGlyph[g] = string(c)
			}
		}
	}
	// Glyphs the font's substitutions make read as the glyphs they are made from.
	if gsub := sfntTables(data)["GSUB"]; gsub != nil {
		texts := make(map[uint16]string, len(byGlyph))
		for g, t := range byGlyph {
			texts[uint16(g)] = t
		}
		substitutedText(texts, gsubSources(gsub))
		for g, t := range texts {
			byGlyph[sfnt.GlyphIndex(g)] = t
		}
	}
	return r.cidsText(d, byGlyph)
}

// cidsText maps the CIDs of CIDFontType2 font d to the text of their glyphs (byGlyph): CIDs
// are glyph numbers, unless CIDToGIDMap says otherwise.
func (r *reader) cidsText(d pdf.Value, byGlyph map[sfnt.GlyphIndex]string) map[uint32]string {
	out := make(map[uint32]string, len(byGlyph))
	if m := d.Key("CIDToGIDMap"); m.Kind() == pdf.Stream {
		table, err := r.stream(m, "a CIDToGIDMap")
		if err != nil {
			return nil
		}
		for cid := 0; 2*cid+1 < len(table); cid++ {
			g := sfnt.GlyphIndex(table[2*cid])<<8 | sfnt.GlyphIndex(table[2*cid+1])
			if t, ok := byGlyph[g]; ok {
				out[uint32(cid)] = t
			}
		}
		return out
	}
	for g, t := range byGlyph {
		out[uint32(g)] = t
	}
	return out
}

var (
	coreOnce   sync.Once
	coreWidths map[string]*[256]float64 // by fpdf's family+style key
)

// standardWidths gives a standard (base 14) font without a Widths array the widths of its
// metrics (fpdf carries Adobe's core font metrics, symbolwidths.go the Symbol font's), by
// the text of each code; false when base is not one of them.
func standardWidths(f *font, base string) bool {
	if strings.HasPrefix(base, "Symbol") {
		symbolFontWidths(f)
		return true
	}
	family, style := coreFont(base)
	if family == "" {
		for c := range f.width {
			f.width[c] = 0.5
		}
		return false
	}
	coreOnce.Do(loadCoreWidths)
	w := coreWidths[family+style]
	if w == nil {
		return false
	}
	byText := map[string]float64{}
	for c, t := range winAnsiEncoding {
		if t != "" {
			byText[t] = w[c]
		}
	}
	for c, t := range f.text {
		if v, ok := byText[t]; ok {
			f.width[c] = v
		} else {
			f.width[c] = 0.5
		}
	}
	return true
}

// symbolFontWidths gives the standard Symbol font its widths (symbolWidths), by the text
// of each code as its own encoding spells it.
func symbolFontWidths(f *font) {
	byText := map[string]float64{}
	for c, t := range symbolEncoding {
		if t != "" && symbolWidths[c] > 0 {
			byText[t] = float64(symbolWidths[c]) / 1000
		}
	}
	for c, t := range f.text {
		if v, ok := byText[t]; ok {
			f.width[c] = v
		} else {
			f.width[c] = 0.5
		}
	}
}

// coreFont names fpdf's core font for a base font name ("Helvetica-BoldOblique" → helvetica, BI).
// A TrueType font not embedded names its style after a comma ("TimesNewRoman,Italic", as
// Acrobat and Windows' printer drivers write them; pdftotext's table of the standard fonts has
// them): read as no standard font, its letters were guessed half an em wide, wider than its
// words' advances, and words drawn one by one ran together ("propertiesof" in Unstructured's
// a1977-backus-p21.pdf).
func coreFont(base string) (family, style string) {
	name, variant, _ := strings.Cut(base, "-")
	if n, v, ok := strings.Cut(base, ","); ok && len(n) < len(name) {
		name, variant = n, v
	}
	name = strings.ToLower(strings.TrimSuffix(name, "MT"))
	switch name {
	case "helvetica", "arial", "arialmt":
		family = "helvetica"
	case "times", "timesnewroman", "timesnewromanps":
		family = "times"
	case "courier", "couriernew", "couriernewps":
		family = "courier"
	default:
		return "", ""
	}
	v := strings.ToLower(variant)
	if strings.Contains(v, "bold") {
		style += "B"
	}
	if strings.Contains(v, "italic") || strings.Contains(v, "oblique") {
		style += "I"
	}
	return family, style
}

func loadCoreWidths() {
	coreWidths = map[string]*[256]float64{}
	for _, family := range []string{"helvetica", "times", "courier"} {
		for _, style := range []string{"", "B", "I", "BI"} {
			p := fpdf.New("P", "pt", "A4", "")
			p.SetFont(family, style, 1000)
			var w [256]float64
			for c := 1; c < 256; c++ {
				w[c] = float64(p.GetStringSymbolWidth(string([]byte{byte(c)}))) / 1000
			}
			if p.Err() {
				continue
			}
			coreWidths[family+style] = &w
		}
	}
}
