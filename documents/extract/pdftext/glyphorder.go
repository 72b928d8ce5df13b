package pdftext

import (
	"encoding/binary"
	"slices"
	"strings"
)

// Glyphs read by their place in the font. Windows' PostScript driver (PScript5, distilled
// by Acrobat) embeds Word's TrueType fonts as Identity-H subsets without a ToUnicode map
// and with neither a cmap nor a post table left in the program: nothing names the glyphs
// but their numbers. pdftotext prints the numbers as characters, a Caesar cipher of the
// text ("6FKXWWHUZDOGDNWXHOO" for "Schutterwaldaktuell"), and EdgeChat read nothing. The
// fonts Windows ships for Latin text (Arial, Times New Roman, Segoe UI, …) keep Apple's
// standard order of the first 258 glyphs, which a post table of format 1 or 2 numbers:
// glyph 3 is the space, 4–97 ASCII's characters, 98 on the Mac Roman set's letters.
// standardOrderText reads the glyphs so where the font's advances show that order.

// macGlyphNames are the 258 glyphs of the standard Macintosh order, by number.
var macGlyphNames = strings.Fields(`.notdef .null nonmarkingreturn space exclam quotedbl
numbersign dollar percent ampersand quotesingle parenleft parenright asterisk plus comma
hyphen period slash zero one two three four five six seven eight nine colon semicolon less
equal greater question at A B C D E F G H I J K L M N O P Q R S T U V W X Y Z bracketleft
backslash bracketright asciicircum underscore grave a b c d e f g h i j k l m n o p q r s t
u v w x y z braceleft bar braceright asciitilde Adieresis Aring Ccedilla Eacute Ntilde
Odieresis Udieresis aacute agrave acircumflex adieresis atilde aring ccedilla eacute egrave
ecircumflex edieresis iacute igrave icircumflex idieresis ntilde oacute ograve ocircumflex
odieresis otilde uacute ugrave ucircumflex udieresis dagger degree cent sterling section
bullet paragraph germandbls registered copyright trademark acute dieresis notequal AE
Oslash infinity plusminus lessequal greaterequal yen mu partialdiff summation product pi
integral ordfeminine ordmasculine Omega ae oslash questiondown exclamdown logicalnot radical
florin approxequal Delta guillemotleft guillemotright ellipsis nonbreakingspace Agrave
Atilde Otilde OE oe endash emdash quotedblleft quotedblright quoteleft quoteright divide
lozenge ydieresis Ydieresis fraction currency guilsinglleft guilsinglright fi fl daggerdbl
periodcentered quotesinglbase quotedblbase perthousand Acircumflex Ecircumflex Aacute
Edieresis Egrave Iacute Icircumflex Idieresis Igrave Oacute Ocircumflex apple Ograve Uacute
Ucircumflex Ugrave dotlessi circumflex tilde macron breve dotaccent ring cedilla
hungarumlaut ogonek caron Lslash lslash Scaron scaron Zcaron zcaron brokenbar Eth eth
Yacute yacute Thorn thorn minus multiply onesuperior twosuperior threesuperior onehalf
onequarter threequarters franc Gbreve gbreve Idotaccent Scedilla scedilla Cacute cacute
Ccaron ccaron dcroat`)

// Glyph numbers of the standard order that standardOrder weighs.
const (
	gSpace, gPeriod, gZero, gA, gI, gM, gW, ga, gi, gl, gm, gn = 3, 17, 19, 36, 44, 48, 58, 68, 76, 79, 80, 81
	gAdieresis, gNbspace                                       = 98, 172 // where the Mac Roman set's letters start; the no-break space
)

// standardOrderText gives the glyphs of a TrueType program's tables (sfntTables) the text
// of their place in the standard order, glyph number → text, when the program has no cmap
// and no post table to say otherwise and its advances are those of that order
// (standardOrder); nil when they are not. The Mac Roman set's accented letters (98–171) are
// read where they are as wide as their letters (all but 7 of the 28 weighed: Segoe UI
// Bold's ö ó ò are wider than its o), and the glyphs from 172 on where the
// capitals with accents there are, in the standard order or in it without the glyphs
// Windows' fonts leave out: Segoe UI has no Apple logo (glyph 210), Arial and Times New
// Roman neither it nor a glyph of their own for the no-break space (172), and what follows
// stands one or two places earlier. Those fonts draw the euro sign at the place of the
// currency sign (Mac Roman's code of ¤ became €'s in 1998; a Word newsletter's prices,
// "68.413,00 €").
func standardOrderText(tables map[string][]byte) map[uint16]string {
	if tables["cmap"] != nil || tables["post"] != nil {
		return nil
	}
	adv, ok := advances(tables)
	if !ok || !standardOrder(adv) {
		return nil
	}
	out := make(map[uint16]string, len(macGlyphNames))
	read := func(names []string, from, to int) {
		for g := from; g < to && g < len(names); g++ {
			switch name := names[g]; name {
			case "apple", ".notdef", ".null", "nonmarkingreturn":
			case "currency":
				out[uint16(g)] = "€"
			default:
				if t := glyphText(name); t != "" {
					out[uint16(g)] = t
				}
			}
		}
	}
	read(macGlyphNames, gSpace, gAdieresis)
	if accentsMisfit(adv, macGlyphNames, gAdieresis, gNbspace) > maxMisfits {
		return out
	}
	read(macGlyphNames, gAdieresis, gNbspace)
	var best []string
	fewest, ties := len(macGlyphNames), 0
	for _, names := range windowsOrders() {
		switch n := accentsMisfit(adv, names, gNbspace, len(names)); {
		case n < fewest:
			best, fewest, ties = names, n, 0
		case n == fewest:
			ties++
		}
	}
	if fewest <= 1 && ties == 0 {
		read(best, gNbspace, len(best))
	}
	return out
}

// maxMisfits is how many of the 28 accented letters at 98–171 may be wider or narrower than
// their letter in a font of the standard order.
const maxMisfits = 7

// windowsOrders are the standard order and the orders of it without the no-break space,
// without the Apple logo, and without both.
func windowsOrders() [][]string {
	var orders [][]string
	for _, leftOut := range [][]string{nil, {"nonbreakingspace"}, {"apple"}, {"nonbreakingspace", "apple"}} {
		names := slices.DeleteFunc(slices.Clone(macGlyphNames), func(n string) bool { return slices.Contains(leftOut, n) })
		orders = append(orders, names)
	}
	return orders
}

// advances reads a TrueType program's horizontal advances by glyph number (hmtx, which a
// subset keeps whole); false when there are too few to weigh the standard order by.
func advances(tables map[string][]byte) (func(g int) int, bool) {
	hhea, hmtx := tables["hhea"], tables["hmtx"]
	if len(hhea) < 36 {
		return nil, false
	}
	n := int(binary.BigEndian.Uint16(hhea[34:])) // numberOfHMetrics; the glyphs after it share the last advance
	if n <= gn || 4*n > len(hmtx) {
		return nil, false
	}
	return func(g int) int {
		return int(binary.BigEndian.Uint16(hmtx[4*min(g, n-1):]))
	}, true
}

// standardOrder says whether a TrueType program's advances (adv) are those of glyphs in
// the standard order: ten figures of one width at 19–28 (a text font's tabular figures),
// and i, l narrower than n, n narrower than m, I narrower than M and W, the period narrower
// than a figure, the space wider than nothing and narrower than m. Cambria Math's glyphs,
// in an order of their own, fail the first; fonts of one width throughout (Courier New)
// fail too: nothing there tells the order.
func standardOrder(adv func(g int) int) bool {
	for g := gZero + 1; g < gZero+10; g++ {
		if adv(g) != adv(gZero) {
			return false
		}
	}
	return adv(gZero) > 0 && adv(gi) < adv(gn) && adv(gl) < adv(gn) && adv(gn) < adv(gm) &&
		adv(gI) < adv(gM) && adv(gI) < adv(gW) && adv(gPeriod) < adv(gZero) &&
		adv(gSpace) > 0 && adv(gSpace) < adv(gm)
}

// accentsMisfit counts the letters with accents among glyphs from–to, named by names,
// that are not as wide as their letter (i's with accents are left out: Arial draws them on
// a wider dotless i).
func accentsMisfit(adv func(g int) int, names []string, from, to int) int {
	misfits := 0
	for g := from; g < to && g < len(names); g++ {
		name := names[g]
		switch name[1:] {
		case "dieresis", "ring", "cedilla", "acute", "tilde", "grave", "circumflex":
		default:
			continue
		}
		if strings.IndexByte("AaCcEeNnOoUu", name[0]) >= 0 && adv(g) != adv(orderLetter(name[0])) {
			misfits++
		}
	}
	return misfits
}

// orderLetter is the glyph number of an ASCII letter in the standard order.
func orderLetter(c byte) int {
	if c >= 'a' {
		return ga + int(c-'a')
	}
	return gA + int(c-'A')
}
