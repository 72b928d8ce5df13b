package pdftext

import (
	"encoding/binary"
	"strings"
)

// cffStandardStrings are CFF's 391 standard strings: the names of Adobe's standard Latin
// set (0–228) and of its expert set (229–378: small capitals, old-style figures, superior
// and inferior letters, and the ligatures ff ffi ffl at 266–268, which Ghostscript's Type1C
// fonts name by these strings: TUGboat's "different" read "dierent" without them), then
// the weights (379–390).
var cffStandardStrings = strings.Fields(`.notdef space exclam quotedbl numbersign dollar percent
ampersand quoteright parenleft parenright asterisk plus comma hyphen period slash zero one two
three four five six seven eight nine colon semicolon less equal greater question at A B C D E F G
H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash bracketright asciicircum underscore
quoteleft a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar braceright asciitilde
exclamdown cent sterling fraction yen florin section currency quotesingle quotedblleft
guillemotleft guilsinglleft guilsinglright fi fl endash dagger daggerdbl periodcentered paragraph
bullet quotesinglbase quotedblbase quotedblright guillemotright ellipsis perthousand questiondown
grave acute circumflex tilde macron breve dotaccent dieresis ring cedilla hungarumlaut ogonek
caron emdash AE ordfeminine Lslash Oslash OE ordmasculine ae dotlessi lslash oslash oe germandbls
onesuperior logicalnot mu trademark Eth onehalf plusminus Thorn onequarter divide brokenbar degree
thorn threequarters twosuperior registered minus eth multiply threesuperior copyright Aacute
Acircumflex Adieresis Agrave Aring Atilde Ccedilla Eacute Ecircumflex Edieresis Egrave Iacute
Icircumflex Idieresis Igrave Ntilde Oacute Ocircumflex Odieresis Ograve Otilde Scaron Uacute
Ucircumflex Udieresis Ugrave Yacute Ydieresis Zcaron aacute acircumflex adieresis agrave aring
atilde ccedilla eacute ecircumflex edieresis egrave iacute icircumflex idieresis igrave ntilde
oacute ocircumflex odieresis ograve otilde scaron uacute ucircumflex udieresis ugrave yacute
ydieresis zcaron exclamsmall Hungarumlautsmall dollaroldstyle dollarsuperior ampersandsmall
Acutesmall parenleftsuperior parenrightsuperior twodotenleader onedotenleader zerooldstyle
oneoldstyle twooldstyle threeoldstyle fouroldstyle fiveoldstyle sixoldstyle sevenoldstyle
eightoldstyle nineoldstyle commasuperior threequartersemdash periodsuperior questionsmall
asuperior bsuperior centsuperior dsuperior esuperior isuperior lsuperior msuperior nsuperior
osuperior rsuperior ssuperior tsuperior ff ffi ffl parenleftinferior parenrightinferior
Circumflexsmall hyphensuperior Gravesmall Asmall Bsmall Csmall Dsmall Esmall Fsmall Gsmall Hsmall
Ismall Jsmall Ksmall Lsmall Msmall Nsmall Osmall Psmall Qsmall Rsmall Ssmall Tsmall Usmall Vsmall
Wsmall Xsmall Ysmall Zsmall colonmonetary onefitted rupiah Tildesmall exclamdownsmall centoldstyle
Lslashsmall Scaronsmall Zcaronsmall Dieresissmall Brevesmall Caronsmall Dotaccentsmall Macronsmall
figuredash hypheninferior Ogoneksmall Ringsmall Cedillasmall questiondownsmall oneeighth
threeeighths fiveeighths seveneighths onethird twothirds zerosuperior foursuperior fivesuperior
sixsuperior sevensuperior eightsuperior ninesuperior zeroinferior oneinferior twoinferior
threeinferior fourinferior fiveinferior sixinferior seveninferior eightinferior nineinferior
centinferior dollarinferior periodinferior commainferior Agravesmall Aacutesmall Acircumflexsmall
Atildesmall Adieresissmall Aringsmall AEsmall Ccedillasmall Egravesmall Eacutesmall
Ecircumflexsmall Edieresissmall Igravesmall Iacutesmall Icircumflexsmall Idieresissmall Ethsmall
Ntildesmall Ogravesmall Oacutesmall Ocircumflexsmall Otildesmall Odieresissmall OEsmall
Oslashsmall Ugravesmall Uacutesmall Ucircumflexsmall Udieresissmall Yacutesmall Thornsmall
Ydieresissmall 001.000 001.001 001.002 001.003 Black Bold Book Light Medium Regular Roman
Semibold`)

// cff reads the parts of a bare CFF font program (FontFile3/Type1C) that name its glyphs.
type cff struct {
	data []byte
	pos  int
	bad  bool
}

func (c *cff) u8() int {
	if c.pos >= len(c.data) {
		c.bad = true
		return 0
	}
	c.pos++
	return int(c.data[c.pos-1])
}

func (c *cff) u16() int { return c.u8()<<8 | c.u8() }

func (c *cff) offset(size int) int {
	v := 0
	for range size {
		v = v<<8 | c.u8()
	}
	return v
}

// index reads an INDEX: its items.
func (c *cff) index() [][]byte {
	n := c.u16()
	if n == 0 || c.bad {
		return nil
	}
	size := c.u8()
	if size < 1 || size > 4 || n > len(c.data) {
		c.bad = true
		return nil
	}
	offs := make([]int, n+1)
	for i := range offs {
		offs[i] = c.offset(size)
	}
	base := c.pos - 1
	items := make([][]byte, n)
	for i := range n {
		lo, hi := base+offs[i], base+offs[i+1]
		if lo < c.pos || hi < lo || hi > len(c.data) {
			c.bad = true
			return nil
		}
		items[i] = c.data[lo:hi]
	}
	c.pos = base + offs[n]
	return items
}

// topDict reads the operators of a Top DICT that matter here: charset (15), Encoding (16),
// CharStrings (17) and ROS (12 30, a CID-keyed font).
func topDict(d []byte) (ops map[int]int) {
	ops = map[int]int{}
	var stack []int
	for i := 0; i < len(d); {
		b := int(d[i])
		switch {
		case b <= 21:
			op := b
			if b == 12 && i+1 < len(d) {
				op = 1200 + int(d[i+1])
				i++
			}
			if len(stack) > 0 {
				ops[op] = stack[len(stack)-1]
			} else {
				ops[op] = 0
			}
			stack = stack[:0]
			i++
		case b == 28 && i+2 < len(d):
			stack = append(stack, int(int16(binary.BigEndian.Uint16(d[i+1:]))))
			i += 3
		case b == 29 && i+4 < len(d):
			stack = append(stack, int(int32(binary.BigEndian.Uint32(d[i+1:]))))
			i += 5
		case b == 30: // a real: nibbles up to 0xf
			for i++; i < len(d) && d[i]&0x0f != 0x0f && d[i]>>4 != 0x0f; i++ {
			}
			i++
			stack = append(stack, 0)
		case b >= 32 && b <= 246:
			stack = append(stack, b-139)
			i++
		case b >= 247 && b <= 250 && i+1 < len(d):
			stack = append(stack, (b-247)*256+int(d[i+1])+108)
			i += 2
		case b >= 251 && b <= 254 && i+1 < len(d):
			stack = append(stack, -(b-251)*256-int(d[i+1])-108)
			i += 2
		default:
			i++
		}
	}
	return ops
}

// cffEncoding is the built-in encoding of a CFF font: code → glyph → name → text. nil when
// it is StandardEncoding or cannot be read.
func cffEncoding(data []byte) *encoding { return namesText(cffNames(data)) }

// cffNames is the built-in encoding of a CFF font: code → glyph → name. nil when it is
// StandardEncoding or cannot be read.
func cffNames(data []byte) *[256]string {
	c := &cff{data: data}
	if len(data) < 4 {
		return nil
	}
	c.pos = int(data[2]) // header size
	c.index()            // names
	tops := c.index()
	strs := c.index()
	if c.bad || len(tops) == 0 {
		return nil
	}
	top := topDict(tops[0])
	if _, cid := top[1230]; cid {
		return nil
	}
	encOff, csOff, chars := top[16], top[15], top[17]
	if encOff <= 1 || chars <= 0 || chars >= len(data) {
		return nil // Standard or Expert
	}
	c.pos = chars
	nGlyphs := len(c.index())
	if c.bad || nGlyphs == 0 {
		return nil
	}
	names := c.charset(csOff, nGlyphs, strs)
	var e [256]string
	c.pos = encOff
	format := c.u8()
	gid := 1
	switch format & 0x7f {
	case 0:
		n := c.u8()
		for range n {
			if code := c.u8(); gid < len(names) {
				e[code] = names[gid]
			}
			gid++
		}
	case 1:
		n := c.u8()
		for range n {
			first, left := c.u8(), c.u8()
			for code := first; code <= first+left && code < 256; code++ {
				if gid < len(names) {
					e[code] = names[gid]
				}
				gid++
			}
		}
	}
	if format&0x80 != 0 { // supplements: more codes for named glyphs
		n := c.u8()
		for range n {
			code, sid := c.u8(), c.u16()
			e[code] = sidName(sid, strs)
		}
	}
	if c.bad {
		return nil
	}
	return &e
}

// charset names the glyphs 0…n-1.
func (c *cff) charset(off, n int, strs [][]byte) []string {
	names := make([]string, n)
	names[0] = ".notdef"
	if off <= 2 { // ISOAdobe (and the expert sets, which this cannot name): glyph = SID
		for g := 1; g < n; g++ {
			names[g] = sidName(g, strs)
		}
		return names
	}
	c.pos = off
	switch c.u8() {
	case 0:
		for g := 1; g < n && !c.bad; g++ {
			names[g] = sidName(c.u16(), strs)
		}
	case 1, 2:
		format := c.data[off]
		for g := 1; g < n && !c.bad; {
			sid := c.u16()
			left := c.u8()
			if format == 2 {
				left = left<<8 | c.u8()
			}
			for k := 0; k <= left && g < n; k++ {
				names[g] = sidName(sid+k, strs)
				g++
			}
		}
	}
	return names
}

func sidName(sid int, strs [][]byte) string {
	if sid < len(cffStandardStrings) {
		return cffStandardStrings[sid]
	}
	if i := sid - 391; i >= 0 && i < len(strs) {
		return string(strs[i])
	}
	return ""
}
