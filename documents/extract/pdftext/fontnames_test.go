package pdftext

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
	"time"

	"edgechat/internal/testkit/testdocs"
)

// pdfWithFont is a one-page PDF drawing content with font F1 (fontDict), whose other
// objects (a ToUnicode map, a descriptor, a font program) are objects 6, 7, ….
func pdfWithFont(fontDict, content string, more ...[]byte) []byte {
	objs := [][]byte{
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
		testdocs.Stream("", []byte(content)),
		[]byte(fontDict),
	}
	return testdocs.RawPDF(1, append(objs, more...)...)
}

// trueTypeProgram is a TrueType font program of two tables: a (1,0) cmap of format 6 that
// maps codes first… to glyphs 1…, and a post table of format 2 naming those glyphs.
func trueTypeProgram(first int, names ...string) []byte {
	var cmap bytes.Buffer
	be := func(b *bytes.Buffer, v ...any) {
		for _, x := range v {
			binary.Write(b, binary.BigEndian, x)
		}
	}
	be(&cmap, uint16(0), uint16(1), uint16(1), uint16(0), uint32(12))
	be(&cmap, uint16(6), uint16(10+2*len(names)), uint16(0), uint16(first), uint16(len(names)))
	for g := range names {
		be(&cmap, uint16(g+1))
	}
	var post bytes.Buffer
	be(&post, uint32(0x00020000), make([]byte, 28), uint16(len(names)+1), uint16(0))
	for i := range names {
		be(&post, uint16(258+i))
	}
	for _, n := range names {
		post.WriteByte(byte(len(n)))
		post.WriteString(n)
	}
	return sfntOf(sfntTable{"cmap", cmap.Bytes()}, sfntTable{"post", post.Bytes()})
}

type sfntTable struct {
	tag  string
	data []byte
}

// sfntOf packs tables into a TrueType program.
func sfntOf(tables ...sfntTable) []byte {
	var font bytes.Buffer
	be := func(v ...any) {
		for _, x := range v {
			binary.Write(&font, binary.BigEndian, x)
		}
	}
	be(uint32(0x00010000), uint16(len(tables)), uint16(32), uint16(1), uint16(0))
	off := 12 + 16*len(tables)
	for _, t := range tables {
		font.WriteString(t.tag)
		be(uint32(0), uint32(off), uint32(len(t.data)))
		off += len(t.data)
	}
	for _, t := range tables {
		font.Write(t.data)
	}
	return font.Bytes()
}

// withOutlines adds head, loca (short) and glyf to the program trueTypeProgram made of
// glyphs 1…len(blank): a glyph blank has no outline, the others 4 bytes each.
func withOutlines(first int, names []string, blank []bool) []byte {
	prog := trueTypeProgram(first, names...)
	tables := []sfntTable{}
	for tag, data := range sfntTables(prog) {
		tables = append(tables, sfntTable{tag, data})
	}
	head := make([]byte, 54) // indexToLocFormat 0 at 50: short offsets
	var loca, glyf bytes.Buffer
	binary.Write(&loca, binary.BigEndian, uint16(0)) // .notdef, empty
	binary.Write(&loca, binary.BigEndian, uint16(0))
	for _, b := range blank {
		if !b {
			glyf.Write([]byte{0, 1, 0, 0})
		}
		binary.Write(&loca, binary.BigEndian, uint16(glyf.Len()/2))
	}
	tables = append(tables, sfntTable{"head", head}, sfntTable{"loca", loca.Bytes()}, sfntTable{"glyf", glyf.Bytes()})
	slices.SortFunc(tables, func(a, b sfntTable) int { return strings.Compare(a.tag, b.tag) })
	return sfntOf(tables...)
}

// TestBlankVisibleSpace: a TrueType font's code named visiblespace reads as a space when
// its glyph has no outline (PrimoPDF's subsets of Washra's Ethiopic fonts), as ␣ when it
// draws one (TeX's T1 fonts).
func TestBlankVisibleSpace(t *testing.T) {
	font := "<< /Type /Font /Subtype /TrueType /BaseFont /WPJHTU+EthiopicWashRaBold /FirstChar 65 /LastChar 67 /Widths [600 272 600]" +
		" /Encoding << /BaseEncoding /WinAnsiEncoding /Differences [65 /uni1235 /visiblespace /uni1245] >> /FontDescriptor 7 0 R >>"
	desc := []byte("<< /Type /FontDescriptor /FontName /WPJHTU+EthiopicWashRaBold /Flags 32 /FontFile2 8 0 R >>")
	names := []string{"uni1235", "visiblespace", "uni1245"}
	for _, tt := range []struct {
		name  string
		blank bool
		want  string
	}{{"a blank glyph is a space", true, "ስ ቅ"}, {"a drawn one is ␣", false, "ስ␣ቅ"}} {
		t.Run(tt.name, func(t *testing.T) {
			prog := withOutlines(65, names, []bool{false, tt.blank, false})
			pages, err := Read(pdfWithFont(font, "BT /F1 10 Tf 72 700 Td (ABC) Tj ET", []byte("null"), desc, testdocs.Stream("", prog)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(pages[0].Text); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLegacyDevanagari(t *testing.T) {
	// Velthuis's dvnc10 names its glyphs so; codes A… as below, drawn in visual order
	velthuis := simpleFont("/Encoding << /Differences [65 /a /imatra /halfga /na /va /ematra /repha /pa /uumatra /ka /rstroke /t_t /aamatra /ta. /zero /one /candrabindu /omatra /nukta /rr] >>")
	tests := []struct{ name, font, content, want string }{
		{"glyph names read as Devanagari, the i sign and reph in text order", velthuis,
			// अ ि ग् न | प ू व े र् | क ्र | त्त ा | त ० १: the i sign drawn before ग्न, the
			// reph after वे; the Latin-named a and digits are the font's too
			"BT /F1 10 Tf 72 700 Td (ABCD HIEFG JK LM NOP) Tj ET", "अग्नि पूर्वे क्र त्ता त०१"},
		{"a candrabindu drawn before its vowel sign, the letter a with a sign", velthuis,
			// वाँ drawn व ँ ा; ओ drawn as अ and the o sign
			"BT /F1 10 Tf 72 700 Td (EQM AR) Tj ET", "वाँ ओ"},
		{"an i sign before a consonant alone", velthuis,
			"BT /F1 10 Tf 72 700 Td (BN) Tj ET", "ति"},
		{"Velthuis's rr is the vocalic r, its nukta after a digit a period", velthuis,
			// ऋ, and the verse number १.१ drawn with the nukta as its dot
			"BT /F1 10 Tf 72 700 Td (T PSP) Tj ET", "ऋ १.१"},
		{"a few such names are not enough", simpleFont("/Encoding << /Differences [65 /ka /pa /ta] >>"),
			"BT /F1 10 Tf 72 700 Td (ABC) Tj ET", "ABC"},
		{"an e sign drawn back over its wide letter joins its word", velthuis,
			"BT /F1 10 Tf 200 Tz 72 700 Td [(E) 500 (F) (N)] TJ ET", "वेत"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, err := Read(pdfWith(tt.font, "", tt.content), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(pages[0].Text); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDevanagariGlyph(t *testing.T) {
	tests := []struct{ name, want string }{
		{"ka", "क"}, {"kha", "ख"}, {"ssa", "ष"}, {"lla", "ळ"}, {"virama", "्"}, {"anusvara", "ं"},
		{"aamatra", "ा"}, {"rimatra", "ृ"}, {"halfssa", "ष्"}, {"t_t", "त्त"}, {"dd_y", "ड्य"},
		{"j_ny", "ज्ञ"}, {"sh_v", "श्व"}, {"kr", "क्र"}, {"ru", "रु"}, {"ksa", "क्ष"}, {"ta.", "त"},
		{"rstroke", "्र"}, {"repha", "र्"}, {"kadeva", ""}, {"Alpha", ""}, {"halfx", ""}, {"b_x", ""}, {"period", ""},
	}
	for _, tt := range tests {
		got, _, _ := devanagariGlyph(tt.name)
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFontProgramNames(t *testing.T) {
	khmer := trueTypeProgram(0x21, "uni1780", "uni17CC", "uni17CC.alt", "uni178017B6.dotted", "uni25CC.demo")
	toUni := testdocs.Stream("", []byte("1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <20> <0020> <21> <1780> <22> <17CC> endbfchar"))
	trueType := func(flags int, toUnicode string) string {
		return "<< /Type /Font /Subtype /TrueType /BaseFont /ABCDEF+KhmerMondulkiri " + toUnicode +
			" /FontDescriptor 7 0 R " + widths + strings.Repeat("500 ", 256) + "] >>"
	}
	descriptor := func(flags string) []byte {
		return []byte("<< /Type /FontDescriptor /FontName /ABCDEF+KhmerMondulkiri /Flags " + flags + " /FontFile2 8 0 R >>")
	}
	tests := []struct {
		name string
		pdf  []byte
		want string
	}{
		{"a symbolic TrueType font's codes missing from ToUnicode read by its glyph names",
			// Quartz's subset of Mondulkiri: the stylistic alternate ៌ (code 0x23) and the
			// dotted-circle ka with aa (0x24) have no ToUnicode entry
			pdfWithFont(trueType(4, "/ToUnicode 6 0 R"), "BT /F1 10 Tf 72 700 Td (!\" !# $ %) Tj ET",
				toUni, descriptor("4"), testdocs.Stream("", khmer)),
			"ក៌ ក៌ កា ◌"},
		{"a non-symbolic font's encoding stands",
			pdfWithFont(trueType(32, ""), "BT /F1 10 Tf 72 700 Td (!#) Tj ET",
				[]byte("null"), descriptor("32"), testdocs.Stream("", khmer)),
			"!#"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, err := Read(tt.pdf, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(pages[0].Text); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// gsubTable is a GSUB table of two lookups: a single substitution 294 → 446 (a vowel sign's
// drawn form) and a ligature 16 20 → 500.
func gsubTable() []byte {
	var b bytes.Buffer
	for _, v := range []uint16{
		1, 0, 0, 0, 10, // header: version, script and feature lists, lookup list at 10
		2, 6, 28, // lookup list: 2 lookups, at 16 and 38
		1, 0, 1, 8, // lookup 0: single, one subtable at 24
		2, 8, 1, 446, // format 2, coverage at 32, one substitute
		1, 1, 294, // coverage
		4, 0, 1, 8, // lookup 1: ligature, one subtable at 46
		1, 18, 1, 8, // format 1, coverage at 64, one ligature set at 54
		1, 4, // ligature set: one ligature at 58
		500, 2, 20, // ligature 500 of 16 (the covered glyph) and 20
		1, 1, 16, // coverage
	} {
		binary.Write(&b, binary.BigEndian, v)
	}
	return b.Bytes()
}

func TestGSUBSources(t *testing.T) {
	sources := gsubSources(gsubTable())
	texts := map[uint16]string{294: "\u1C27", 16: "f", 20: "i"}
	substitutedText(texts, sources)
	for g, want := range map[uint16]string{446: "\u1C27", 500: "fi", 294: "\u1C27"} {
		if texts[g] != want {
			t.Errorf("glyph %d: got %q, want %q (sources %v)", g, texts[g], want, sources)
		}
	}
	if got := gsubSources(gsubTable()[:40]); len(got) > 1 {
		t.Errorf("a cut table gave %v", got)
	}
}

// TestLepchaClusters: Lepcha's dependent signs as a shaper draws them (Microsoft's Print to
// PDF of SIL's Mingzat type sample) read in the order of the text.
func TestLepchaClusters(t *testing.T) {
	lepcha := "1 begincodespacerange <00> <FF> endcodespacerange 12 beginbfchar <20> <0020> " +
		"<41> <1C00> <42> <1C28> <43> <1C24> <44> <1C01> <45> <1C1B> <46> <1C15> " +
		"<48> <1C29> <52> <1C36> <4D> <1C2E> <61> <1C26> <4B> <1C291C2E> endbfchar"
	// ran (R) and the final m (M) are drawn without advance
	w := strings.Repeat("500 ", 256)
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 0 /LastChar 255 /Widths [" +
		w[:4*'M'] + "0 " + w[4*'M'+4:4*'R'] + "0 " + w[4*'R'+4:] + "] /ToUnicode 6 0 R >>"
	tests := []struct{ name, content, want string }{
		{"the o sign drawn left of its letter (with the subjoined ya), then a letter with it drawn after",
			"(BAC DB) Tj", "ᰀᰤᰨ ᰁᰨ"},
		{"ran drawn past its letter's advance, then the next letter's oo sign drawn left of it",
			"[(E) -150 (R) 150 (HF)] TJ", "ᰛᰶᰕᰩ"},
		{"ran drawn past the space after its letter (a chart of consonants with ran)",
			"[(A) -130 (R) 130 ( D) -130 (R)] TJ", "ᰀᰶ ᰁᰶ"},
		{"a glyph of oo and the final m drawn left of its letter",
			"(AaKF) Tj", "ᰀᰦᰕᰩᰮ"},
		{"the final m drawn before the vowel aa",
			"(AMa) Tj", "ᰀᰦᰮ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, err := Read(pdfWith(font, lepcha, "BT /F1 10 Tf 72 700 Td "+tt.content+" ET"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(pages[0].Text); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestGSUBBounded: a GSUB table of 30 bytes whose one lookup names 65,535 subtables (their
// offsets out of range: all read as the lookup itself, a single substitution covering all
// 65,536 glyphs), as fuzzing found, is read within the work bound, not for minutes.
func TestGSUBBounded(t *testing.T) {
	var gsub []byte
	for _, v := range []uint16{
		1, 0, 0, 0, 10, // header: lookup list at 10
		0xFFFF, 4, // 65,535 lookups, the first at 14, the others out of range
		1, 8, 0xFFFF, 0, // lookup: single, coverage at 22 (as a subtable), 65,535 subtables
		2, 1, 0, 0xFFFF, // coverage: one range, glyphs 0–65535
	} {
		gsub = binary.BigEndian.AppendUint16(gsub, v)
	}
	done := make(chan int)
	go func() { done <- len(gsubSources(gsub)) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("gsubSources still reading after 20 s")
	}
}

// cffWithCharset is a bare CFF program whose glyphs 1… are named by the standard strings
// sids and drawn by the codes (encoding format 0), with no strings of its own.
func cffWithCharset(sids, codes []int) []byte {
	var b bytes.Buffer
	be := func(v ...any) {
		for _, x := range v {
			binary.Write(&b, binary.BigEndian, x)
		}
	}
	n := len(sids) + 1
	const top = 18 // three operators, each a 5-byte number and its byte
	charStrings := 4 + 6 + (2 + 1 + 2 + top) + 2
	charset := charStrings + 2 + 1 + (n + 1) + n
	encoding := charset + 1 + 2*len(sids)
	be(uint8(1), uint8(0), uint8(4), uint8(1))              // header
	be(uint16(1), uint8(1), uint8(1), uint8(2), uint8('F')) // names
	be(uint16(1), uint8(1), uint8(1), uint8(1+top))         // Top DICT
	be(uint8(29), int32(charset), uint8(15), uint8(29), int32(encoding), uint8(16))
	be(uint8(29), int32(charStrings), uint8(17))
	be(uint16(0))           // strings
	be(uint16(n), uint8(1)) // CharStrings
	for i := range n + 1 {
		be(uint8(i + 1))
	}
	for range n {
		be(uint8(14)) // endchar
	}
	be(uint8(0))
	for _, s := range sids {
		be(uint16(s))
	}
	be(uint8(0), uint8(len(codes)))
	for _, c := range codes {
		be(uint8(c))
	}
	return b.Bytes()
}

// TestCFFExpertNames: Ghostscript's Type1C fonts name the ligatures ff ffi ffl by the
// expert set's standard strings (266–268), not by strings of their own (TUGboat's article
// in alqalam read "dierent").
func TestCFFExpertNames(t *testing.T) {
	names := cffNames(cffWithCharset([]int{266, 109, 267, 268, 66}, []int{11, 12, 14, 15, 97}))
	if names == nil {
		t.Fatal("not read")
	}
	for code, want := range map[int]string{11: "ff", 12: "fi", 14: "ffi", 15: "ffl", 97: "a"} {
		if names[code] != want {
			t.Errorf("code %d: %q, want %q", code, names[code], want)
		}
	}
}
