package pdftext

import (
	"strings"
	"unicode/utf8"
)

// fpdf2 (and other writers that shape text with HarfBuzz) give a shaped cluster's text to
// the ToUnicode entry of its first glyph and leave the cluster's other glyphs out of the
// map: Hindi "हि" is drawn as the sign ि, mapped to "हि", and the letter ह, unmapped; "ने"
// as न mapped to "ने" and the sign े unmapped. Read by the font's own map those unmapped
// glyphs would spell their letters a second time ("हिह", "नेे"); pdftotext, which reads
// only the ToUnicode map, leaves them out. A glyph without an entry whose text the
// cluster just read already holds (beyond ASCII, where Latin ligatures would be cut) is
// taken as part of it and gives no text; glyphs the map leaves out for other reasons (a
// shaper's substituted forms of Microsoft's Print to PDF) are still read by the font. The
// glyph left out widens the one before over its place, so that it parts no word; a glyph
// that nothing names (XeTeX's Malayalam conjuncts) leaves its gap, as pdftotext reads it.

// clusterText is the text of a mapped code when it spells a cluster (more than one
// character), else "".
func clusterText(text string) string {
	if utf8.RuneCountInString(text) < 2 {
		return ""
	}
	return text
}

// clusterRest is the text of a code without a ToUnicode entry, read by the font: "" when
// the cluster the code before spelled holds it.
func clusterRest(cluster, text string) string {
	if cluster != "" && text != "" && text[0] >= utf8.RuneSelf && strings.Contains(cluster, text) {
		return ""
	}
	return text
}
