package pdftext

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
	"golang.org/x/text/width"
)

// font decodes the strings a PDF font shows: each character code's text and advance.
type font struct {
	// Simple fonts: one byte a code. notdefZero: code 0 names no glyph (no Differences
	// entry, no name in the font program): .notdef, no ligature.
	simple, notdefZero bool
	text               encoding
	width              [256]float64 // advance in text space per unit of font size
	// order is where a legacy Devanagari font draws each code's glyph relative to the
	// text (indic.go); nil for fonts that draw in text order.
	order *[256]uint8

	// Composite (Type0) fonts.
	codes *cmap // the encoding CMap: code lengths and CIDs; nil for Identity
	// unicode says the predefined CMap's codes are Unicode, and in which form: 2 (UCS-2),
	// 16 (UTF-16), 8 (UTF-8), 32 (UTF-32); 0 when they are not.
	unicode int
	// collText is the CID to Unicode map of the CIDFont's character collection (Adobe-Japan1
	// and the other CJK ones), read for codes without a ToUnicode entry; nil for others.
	collText *cidUnicode
	cidW     map[uint32]float64
	dw       float64
	cidText  map[uint32]string // CID (= glyph) to text, from the embedded TrueType font
	// loadCIDText reads cidText when first needed: for a font whose ToUnicode map lacks
	// some of the CIDs it draws.
	loadCIDText func() map[uint32]string
	// ink holds the embedded TrueType font's glyph extents (ink.go), read by loadInk when a
	// mark drawn without advance first needs them; for Identity-encoded CIDFontType2 fonts.
	ink     *inkBoxes
	loadInk func() *inkBoxes

	toUni *cmap // ToUnicode, nil when none
	// symbolPUA says the font is the Symbol font, whose ToUnicode entries at U+F020–U+F0FF
	// read as its codes (symbolpua.go).
	symbolPUA bool
	// cluster is the text of the code last shown when its ToUnicode entry spells more than
	// one character (a shaped cluster), "" after any other mapped code (unmapped.go).
	cluster string
	// rest says the code last shown is a glyph of that cluster without an entry of its
	// own, whose text the cluster holds: it gives none and widens the glyph before.
	rest  bool
	scale float64
	// guessed says the widths are not in the file (a standard font without Widths).
	guessed bool
	// type3 says the font is a Type3 font: whether its glyphs are drawn mirrored is up to
	// their procedures (slant.go's place).
	type3 bool
	// vert holds a Type0 font's vertical metrics in vertical writing mode, nil in
	// horizontal mode (vertical.go).
	vert *vertical
}

// em is the font's size unit relative to a 1000-unit em (Type3 fonts set their own).
func (f *font) em() float64 {
	if f.scale == 0 {
		return 1
	}
	return f.scale
}

// each calls fn for each character code of s: its value, length in bytes, text ("" when
// unknown) and advance per unit of font size.
func (f *font) each(s string, fn func(code uint32, n int, text string, w float64)) {
	if f.simple {
		for i := 0; i < len(s); i++ {
			c := s[i]
			fn(uint32(c), 1, f.codeText(int(c)), f.width[c])
		}
		return
	}
	space := f.codes
	if space == nil || !space.hasSpace() {
		space = f.toUni
	}
	for len(s) > 0 {
		var c uint32
		n := 2
		if space != nil && space.hasSpace() {
			c, n = space.next(s)
		} else if len(s) >= 2 {
			c = uint32(s[0])<<8 | uint32(s[1])
		} else {
			c, n = uint32(s[0]), 1
		}
		cid := f.cid(c, n)
		text, ok := f.mappedText(c, n)
		f.rest = false
		if ok {
			f.cluster = clusterText(text)
		} else if text = f.fallbackText(c, n, cid); text != "" {
			text = clusterRest(f.cluster, text)
			f.rest = text == ""
		}
		w, known := f.cidW[cid]
		if !known {
			w = f.dw
		}
		fn(c, n, text, w)
		s = s[n:]
	}
}

// cid is the CID of a composite font's n-byte code c: by its encoding CMap, by the
// collection's CID of the code point a Unicode CMap's code writes, else the code itself.
func (f *font) cid(c uint32, n int) uint32 {
	if f.codes != nil {
		if v, ok := f.codes.cid(c, n); ok {
			return v
		}
	}
	if f.unicode > 0 && f.collText != nil {
		if r, ok := codePoint(f.unicode, c, n); ok {
			if v, ok := f.collText.cidOf(r); ok {
				return v
			}
		}
	}
	return c
}

// fallbackText is a composite font's text for a code without a ToUnicode entry: by a
// Unicode CMap's code, else by the CIDFont's collection, else by the embedded TrueType font.
func (f *font) fallbackText(c uint32, n int, cid uint32) string {
	if f.unicode > 0 {
		if r, ok := codePoint(f.unicode, c, n); ok {
			return string(r)
		}
	}
	if f.collText != nil {
		if t, ok := f.collText.text(cid); ok {
			return t
		}
	}
	if f.loadCIDText != nil {
		f.cidText, f.loadCIDText = f.loadCIDText(), nil
	}
	return f.cidText[cid]
}

// loadFont reads a font dictionary.
func (r *reader) loadFont(v pdf.Value) *font {
	f := &font{}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		if data, err := r.stream(tu, "a ToUnicode map"); err == nil {
			f.toUni = parseCMap(data)
			f.symbolPUA = symbolFontName(v.Key("BaseFont").Name())
		}
	}
	if v.Key("Subtype").Name() == "Type0" {
		r.loadComposite(f, v)
		return f
	}
	f.simple = true
	if f.toUni != nil && !f.toUni.mapsText() {
		// A ToUnicode map that maps no code (iText wrote "0 beginbfchar endbfchar" for
		// symbolic TrueType fonts, pdf.js's issue1350.pdf), or maps codes to U+0000 alone
		// (pypdf's rewrites: PyMuPDF's test_2954.pdf), tells nothing: the codes read by the
		// encoding, as pdftotext reads them, not as a map that gives the font's text alone.
		f.toUni = nil
	}
	r.loadSimple(f, v)
	return f
}

// loadSimple reads a simple font's encoding and widths.
func (r *reader) loadSimple(f *font, v pdf.Value) {
	sub := v.Key("Subtype").Name()
	desc := v.Key("FontDescriptor")
	base := strings.TrimLeft(v.Key("BaseFont").Name(), "")
	if i := strings.IndexByte(base, '+'); i == 6 {
		base = base[i+1:] // a subset's tag
	}
	// The base encoding: named, else the font program's own, else the standard one.
	enc := v.Key("Encoding")
	var table *encoding
	switch enc.Kind() {
	case pdf.Name:
		table = baseEncoding(enc.Name())
	case pdf.Dict:
		table = baseEncoding(enc.Key("BaseEncoding").Name())
	}
	var names [256]string // the glyph name of each code, where the font gives one
	if table == nil {
		if pn := r.programNames(desc); pn != nil {
			names, table = *pn, namesText(pn)
		} else {
			table = r.builtinEncoding(base, sub)
		}
	}
	if flags := desc.Key("Flags").Int64(); sub == "TrueType" && flags&4 != 0 && flags&32 == 0 && f.toUni != nil {
		// A symbolic TrueType font's codes name glyphs, not characters: its Encoding is
		// ignored (as the PDF reference says) and its ToUnicode map alone gives text.
		table = &encoding{}
	}
	f.text = *table
	if enc.Kind() == pdf.Dict {
		applyDifferences(&f.text, &names, enc.Key("Differences"))
	}
	f.notdefZero = names[0] == "" || names[0] == ".notdef"
	if f.toUni != nil {
		replacedNames(f, &names)
	}
	if isZapfDingbats(base) {
		dingbatNames(&f.text, &names) // dingbats.go
	}
	if f.toUni == nil {
		if texts, order := devanagariNames(&names); texts != nil {
			for c, t := range texts {
				if t != "" {
					f.text[c] = t
				}
			}
			f.order = order
		}
	}
	if flags := desc.Key("Flags").Int64(); sub == "TrueType" && flags&4 != 0 {
		r.nameTrueTypeCodes(f, desc)
	}
	if sub == "TrueType" {
		r.blankVisibleSpaces(f, desc)
	}
	// Widths, scaled for Type3 by the font matrix.
	scale := 0.001
	var fm matrix
	if sub == "Type3" {
		if m, ok := arrayMatrix(v.Key("FontMatrix")); ok && m[0] != 0 {
			scale, fm = m[0], m
		}
		f.type3 = true
	}
	widths := v.Key("Widths")
	first := int(v.Key("FirstChar").Int64())
	missing := desc.Key("MissingWidth").Float64()
	for c := range f.width {
		f.width[c] = missing * scale
	}
	if widths.Kind() == pdf.Array && widths.Len() > 0 {
		for i := range min(widths.Len(), 256) {
			if c := first + i; c >= 0 && c < 256 {
				f.width[c] = widths.Index(i).Float64() * scale
			}
		}
		if fm[0] != 0 {
			f.scale = type3Em(f, &names, table, fm)
		}
	} else {
		f.guessed = !standardWidths(f, base)
	}
	if sub == "Type3" { // a ToUnicode map, Ghostscript's of the letters only, still wins
		texBitmapCodes(&f.text, &names, v.Key("CharProcs").Keys(), &f.width) // texenc.go
	}
}

// type3Em is a Type3 font's em in units of its size. Its glyph space has no set em (TeX's
// bitmap fonts draw in pixels, a FontMatrix of 0.012; others in 1/1000s), so the em is
// guessed from the widths as pdftotext guesses it, by the glyphs' names (names[c], else the
// base encoding's character at c): the glyph named "m" is 0.6 em wide, else the first named
// with one letter 0.5 em, else the first named glyph with a width. Names, not the text the
// codes read as: a font whose glyphs are named by their codes ("a109", dvips' and pdfTeX's
// bitmap fonts, ngspice's manual in monospace) has no "m"; its em is taken from its
// figures or its "o" (codeNamedEm), where pdftotext takes it from its first glyph.
//
// Before that last guess, a glyph one em wide in every font is taken at that width: one
// that reads as an ideograph, kana or Hangul, or is named as an emoji (wideText). pdftotext
// takes it for half an em: Skia's Type3 fonts of Chinese text (glyphs named g0, g1, …;
// MinerU's Xmind mind map) were read at twice their size, their lines half an em apart, and
// a line's first word taken for a script stacked on the line above ("简式化分子线性输入规范");
// fpdf2's color emoji (glyphs named u1F92F…) made their line twice as tall as it is, and the
// next line's first letter was read into it ("vmisuals").
func type3Em(f *font, names *[256]string, base *encoding, fm matrix) float64 {
	m, letter, any, wide := -1, -1, -1, -1
	for c := range 256 {
		if wide < 0 && f.width[c] > 0 && (wideText(f.codeText(c)) || wideText(glyphText(names[c]))) {
			wide = c
		}
		n := names[c]
		if n == "" && len(base[c]) == 1 {
			n = base[c] // a base encoding's letter names itself: "m" is /m
		} else if n == "" && base[c] != "" {
			n = "?" // named by the base encoding, not with one letter
		}
		switch {
		case n == "":
			continue
		case n == "m":
			m = c
		}
		if letter < 0 && len(n) == 1 && (n[0]|0x20 >= 'a' && n[0]|0x20 <= 'z') {
			letter = c
		}
		if any < 0 && f.width[c] > 0 {
			any = c
		}
	}
	var em float64
	codeEm := codeNamedEm(f, names)
	switch {
	case m >= 0 && f.width[m] > 0:
		em = f.width[m] / 0.6
	case letter >= 0 && f.width[letter] > 0:
		em = f.width[letter] / 0.5
	case wide >= 0:
		em = f.width[wide] // an ideograph or an emoji is one em wide
	case any >= 0 && codeEm > 0:
		em = codeEm
	case any >= 0:
		em = f.width[any] / 0.5
	default:
		return 1
	}
	return em * math.Abs(fm[3]/fm[0])
}

// codeNamedEm is the em of a font whose glyphs are named by their codes ("a48", dvips'
// and pdfTeX's bitmap fonts of TeX), by its figures, when it draws all ten equally wide,
// else by its "o": both half an em wide in Computer Modern's roman, sans serif and italic
// (0.525 in its typewriter, 0.575 in its bold), as in Times; the "o" only where it is of
// the font's usual widths (letterLike).
// type3Em's last guess, the first glyph's width, may be a dotless i's, a third of an em:
// device-tree-compiler's dtc-paper.pdf (dvips) read its 9-point text at 6 points, its
// lines 11 points apart each a block of its own, the two columns' lines interleaved, and
// a "®" superscript in a font taken at 16 points for a glyph of another line.
// 0 when neither tells.
func codeNamedEm(f *font, names *[256]string) float64 {
	codeNamed := func(c int) bool {
		n := names[c]
		digits := strings.TrimLeft(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
		v, err := strconv.Atoi(digits)
		return err == nil && v == c && len(digits) < len(n) && len(n)-len(digits) <= 3 && f.width[c] > 0
	}
	figures := true
	for c := '0'; c <= '9' && figures; c++ {
		figures = codeNamed(int(c)) && math.Abs(f.width[c]-f.width['0']) <= 0.01*f.width['0']
	}
	switch {
	case figures:
		return f.width['0'] / 0.5
	case codeNamed('o') && letterLike(f.width['o'], f, codeNamed):
		return f.width['o'] / 0.5
	}
	return 0
}

// letterLike says whether w, the width of a font's "o", is about the middle of the widths
// of its glyphs named by codes (0.75 to 1.35 times their median): a letter among letters,
// not a big operator of cmex's at the "o" code among its other pieces.
func letterLike(w float64, f *font, codeNamed func(int) bool) bool {
	var ws []float64
	for c := range 256 {
		if codeNamed(c) {
			ws = append(ws, f.width[c])
		}
	}
	slices.Sort(ws)
	mid := ws[len(ws)/2]
	return w >= 0.75*mid && w <= 1.35*mid
}

// codeText is what a simple font's code reads as: its ToUnicode map's text, else its
// encoding's.
func (f *font) codeText(c int) string {
	if t, ok := f.mappedText(uint32(c), 1); ok {
		return t
	}
	return f.text[c]
}

// mappedText is the ToUnicode map's text of the code c of n bytes, the Symbol font's
// Private Use characters read as its own (symbolpua.go); false when the map has none.
func (f *font) mappedText(c uint32, n int) (string, bool) {
	if f.toUni == nil {
		return "", false
	}
	t, ok := f.toUni.text(c, n)
	if ok && f.symbolPUA {
		t = symbolPUAText(t)
	}
	return t, ok
}

// wideText says whether s is one East Asian wide or fullwidth character (an ideograph,
// kana, Hangul, an emoji), which fonts draw an em wide; not a halfwidth form.
func wideText(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || n != len(s) {
		return false
	}
	k := width.LookupRune(r).Kind()
	return k == width.EastAsianWide || k == width.EastAsianFullwidth
}

// applyDifferences sets the codes a Differences array names: [code /name /name … code …].
// The names are also written to names.
func applyDifferences(t *encoding, names *[256]string, diff pdf.Value) {
	type named struct {
		code int
		name string
	}
	var given []named // the names given codes in 0–255
	c := 0
	for i := range min(diff.Len(), 4096) {
		switch x := diff.Index(i); x.Kind() {
		case pdf.Integer, pdf.Real:
			c = int(x.Int64())
		case pdf.Name:
			if c >= 0 && c < 256 {
				given = append(given, named{c, x.Name()})
				names[c] = x.Name()
			}
			c++
		}
	}
	numeric := len(given) > 0 // all names look like "g65": codes, not glyph names
	for _, n := range given {
		t[n.code] = glyphText(n.name)
		_, isCode := numericCode(n.name)
		numeric = numeric && t[n.code] == "" && isCode
	}
	for _, n := range given {
		switch v, _ := numericCode(n.name); {
		case numeric && v >= 0x20:
			// Names that are numbers: the number is the code of a standard character.
			t[n.code] = winAnsiEncoding[v]
		case t[n.code] == "" && n.name != ".notdef":
			// Glyphs named arbitrarily (a Type 3 font's "CV", "D6") read as their codes, as
			// pdftotext reads them: TeX's bitmap fonts keep letters at their ASCII codes.
			t[n.code] = winAnsiEncoding[n.code]
		}
	}
}

// replacedNames gives the codes that f's ToUnicode map maps to U+FFFD, the replacement
// character (cmap.text reads them by the encoding), the text of their glyph names alone:
// a stylistic alternate ("o.2" reads "o") or nothing, not the character a glyph named
// arbitrarily takes from its code (applyDifferences). Solide Mirage's specimen (Adobe PDF
// Library 15) maps its decorated O and two ornaments, "shadowblackcircle" and "melange"
// at the codes of h and k, to U+FFFD: "SoN" and the ornaments unread.
func replacedNames(f *font, names *[256]string) {
	for c, name := range names {
		if name == "" {
			continue
		}
		if t, ok := f.toUni.mapped(uint32(c), 1); ok && t == "\ufffd" {
			f.text[c] = glyphText(name)
		}
	}
}

// builtinEncoding is the encoding of a font without one in its dictionary nor its
// embedded program: the Symbol font's, or StandardEncoding.
func (r *reader) builtinEncoding(base, sub string) *encoding {
	switch {
	case strings.HasPrefix(base, "Symbol"):
		return symbolEncoding
	case isZapfDingbats(base):
		return zapfDingbatsEncoding // dingbats.go
	case sub == "TrueType":
		return winAnsiEncoding
	}
	return standardEncoding
}

// loadComposite reads a Type0 font: its CMap, its descendant's widths and, without a
// ToUnicode map, the embedded TrueType font's own map from glyphs to Unicode.
func (r *reader) loadComposite(f *font, v pdf.Value) {
	d := v.Key("DescendantFonts").Index(0)
	info := d.Key("CIDSystemInfo")
	coll := cjkCollection(info.Key("Registry").Text(), info.Key("Ordering").Text())
	enc := v.Key("Encoding")
	switch enc.Kind() {
	case pdf.Name:
		name := enc.Name()
		switch form, named := unicodeForm(name); {
		case name == "Identity-H" || name == "Identity-V":
		case form != 0:
			f.unicode = form
			f.codes = unicodeSpace(form)
			if coll == "" {
				coll = named
			}
		default:
			// a predefined CMap of a CJK collection: 90ms-RKSJ-H, GBK-EUC-H, …
			f.codes = predefinedCMap(name)
		}
	case pdf.Stream:
		if data, err := r.stream(enc, "a CMap"); err == nil {
			f.codes = parseCMap(data)
			use := f.codes.use
			if u := enc.Key("UseCMap"); u.Kind() == pdf.Name {
				use = u.Name()
			}
			if use != "" {
				f.codes.useBase(predefinedCMap(use))
			}
		}
	}
	if coll != "" {
		f.collText = collectionText(coll)
	}
	f.dw = 1
	if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
		f.dw = dw.Float64() / 1000
	}
	f.cidW = cidWidths(d.Key("W"))
	f.vert = writingMode(enc, f.codes, d) // vertical.go
	if f.codes == nil && f.toUni == nil && identityCollection(d) && !embedsProgram(d.Key("FontDescriptor")) && !glyphNumbered(f.cidW) {
		// Without a ToUnicode map or a font program to name the glyphs, the CIDs of an
		// Adobe-Identity font are read as UTF-16 codes, as pdftotext reads them: what
		// writers of such fonts mean (an OCR layer in invisible text, pdfium's bug_921.pdf),
		// where nothing else gives the text.
		f.unicode = 2
	}
	if tu := v.Key("ToUnicode").Name(); f.codes == nil && f.toUni == nil && (tu == "Identity-H" || tu == "Identity-V") {
		// A ToUnicode entry that names the identity CMap instead of holding a map says
		// the codes are Unicode's, as PDFBox and pdftotext read them: Solid Converter PDF
		// writes it so for embedded subsets that have no cmap of their own (PDFBox's
		// sample_fonts_solidconvertor.pdf: its Verdana lines read as nothing).
		f.unicode = 2
	}
	if f.codes == nil && d.Key("Subtype").Name() == "CIDFontType2" {
		f.loadInk = func() *inkBoxes { return r.trueTypeInk(d) }
	}
	switch {
	case f.unicode != 0:
	case f.toUni == nil && f.collText == nil:
		f.cidText = r.trueTypeText(d)
	default:
		// Microsoft's Print to PDF leaves the glyphs a shaper substituted (Lepcha's vowel
		// signs in their drawn forms) out of the ToUnicode map: those read by the font.
		f.loadCIDText = func() map[uint32]string { return r.trueTypeText(d) }
	}
}

// identityCollection says whether a CIDFont's character collection is Adobe-Identity or
// Adobe-UCS, whose CIDs pdftotext takes for Unicode when nothing maps them.
func identityCollection(d pdf.Value) bool {
	info := d.Key("CIDSystemInfo")
	o := info.Key("Ordering").Text()
	return info.Key("Registry").Text() == "Adobe" && (o == "Identity" || o == "UCS")
}

// glyphNumbered says whether a CIDFont's widths are given for CIDs below 32, control
// characters as Unicode: its CIDs number the glyphs of a system font (Word's Arabic in
// Traditional Arabic, not embedded, its space glyph 3, pdf.js's ThuluthFeatures.pdf), and
// read as Unicode they would be letters of no script the page shows.
func glyphNumbered(w map[uint32]float64) bool {
	for cid := range w {
		if cid < 32 {
			return true
		}
	}
	return false
}

// embedsProgram says whether a font descriptor holds the font's program.
func embedsProgram(desc pdf.Value) bool {
	for _, k := range []string{"FontFile", "FontFile2", "FontFile3"} {
		if desc.Key(k).Kind() == pdf.Stream {
			return true
		}
	}
	return false
}

// maxCIDWidths bounds a W array's entries.
const maxCIDWidths = 1 << 17

// cidWidths reads a CIDFont's W array: c [w1 w2 …] and cFirst cLast w.
func cidWidths(w pdf.Value) map[uint32]float64 {
	out := map[uint32]float64{}
	n := w.Len()
	for i := 0; i < n && len(out) < maxCIDWidths; {
		c := w.Index(i)
		if i+1 >= n {
			break
		}
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			for j := range next.Len() {
				out[uint32(c.Int64())+uint32(j)] = next.Index(j).Float64() / 1000
			}
			i += 2
			continue
		}
		if i+2 >= n {
			break
		}
		lo, hi, width := c.Int64(), next.Int64(), w.Index(i+2).Float64()/1000
		for cid := lo; cid <= hi && cid >= 0 && len(out) < maxCIDWidths; cid++ {
			out[uint32(cid)] = width
		}
		i += 3
	}
	return out
}

// inkMiddle is the middle of the ink of the glyph code draws, in em from its origin; false
// when the font does not say (inkBoxes).
func (f *font) inkMiddle(code uint32) (float64, bool) {
	if f.loadInk != nil {
		f.ink, f.loadInk = f.loadInk(), nil
	}
	return f.ink.middle(code)
}
