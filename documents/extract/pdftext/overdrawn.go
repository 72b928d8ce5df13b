package pdftext

import "unicode"

// Matplotlib labels each point of a scatter plot with its own text object, and labels of
// points close together are drawn over one another on (nearly) one baseline: "Ir" half an
// em back over the "s" of "Os", 2.7 points lower (python-periodictable-doc's density_plot.pdf).
// Joined into one line by glyph and sorted by x, their letters interleaved ("OIsr" for
// "Os" "Ir", "CNoCi u" for "Co" "Ni" "Cu"). A glyph drawn back over the glyph before the
// last one, further back than where the last one starts, starts a run read after the
// line's glyphs so far (overRun), in its own order: each string stays whole, read in the
// order drawn, as pdftotext reads them ("OsIr", "CoNiCu").
// Text runs forward glyph by glyph: kerning, even TeX's tightest, moves a glyph back into
// the one before it, never before that one's start. Accents, marks and scripts moved back
// over their letter are left to fragments' own cases: the rule holds only for letters and
// figures of the line's size, with advance, of ASCII, Greek and Cyrillic (plainGlyph).

// overdrawnTol is how far back, in units of the glyphs' size, a glyph starts before the
// last glyph's start and before the end of the glyph drawn before that: less is a rounding.
const overdrawnTol = 0.02

// overdrawn says whether g, drawn after the glyphs of cur, starts another string drawn
// back over them: back past the start of the last glyph and into the one before it.
func overdrawn(cur *line, last, g glyph) bool {
	if len(cur.g) < 2 {
		return false
	}
	prev := cur.g[len(cur.g)-2]
	size := max(g.size, 1)
	tol := overdrawnTol * size
	if g.x >= last.x-tol || g.x >= prev.x+prev.w-tol {
		return false
	}
	for _, h := range [...]glyph{g, last, prev} {
		if h.space || h.w <= 0.05*size || abs(h.size-cur.size) > 0.05*size || !plainGlyph(h.text) {
			return false
		}
	}
	return true
}

// plainGlyph says whether s is letters or figures of ASCII, Greek or Cyrillic: scripts
// written left to right without shaping or marks placed back. Punctuation and symbols are
// left out: TeX's \d draws its dot under a letter as a period moved back (sktdoc.pdf's ".l"
// for ḷ), its \b a macron, and both go under the letter by x. So are Latin-1's letters,
// where a font of another script without a ToUnicode map lands its glyphs' pieces: the skt
// fonts draw a Devanagari conjunct as "î", "å", "+" moved back over one another.
func plainGlyph(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r >= 0x80 && (r < 0x0370 || r >= 0x0530) || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// overRun is the run that g, drawn back over the glyphs of cur (overdrawn), starts: its
// glyphs sort after all of cur's, in their own order, as long as they go on from its end
// on its baseline (scriptRun's key).
func overRun(cur *line, g glyph) scriptRun {
	after := cur.x1
	for _, h := range cur.g {
		after = max(after, h.key)
	}
	return scriptRun{l: cur, y: g.y, x0: g.x, end: g.x, firstEnd: after}
}
