package pdftext

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"edgechat/internal/textnorm"
)

// Layout thresholds, in units of the font size (an em).
const (
	wordGap     = 0.1 // a gap wider than this between glyphs is a space (pdftotext's)
	guessGap    = 0.3 // the same after a glyph whose width is guessed
	maxLineGap  = 1.5 // a wider gap on one baseline starts another line (a column, a cell)
	baselineTol = 0.5 // glyphs whose baselines differ by less share a line (super- and subscripts)
	rowTol      = 0.2 // pieces of lines whose baselines differ by less are merged
	blockGap    = 0.5 // a wider vertical gap between lines ends a block
	columnGap   = 0.5 // a wider horizontal gap between lines separates columns
	maxCutLines = 3000
)

// line is a run of glyphs on one baseline, left to right.
type line struct {
	g         []glyph
	x0, x1, y float32
	size      float32
	rtl       bool // the line reads right to left
}

func (l *line) add(g glyph) {
	if len(l.g) == 0 {
		l.x0, l.x1, l.y, l.size = g.x, g.x+g.w, g.y, g.size
	}
	l.g = append(l.g, g)
	l.x0, l.x1, l.size = min(l.x0, g.x), max(l.x1, g.x+g.w), max(l.size, g.size)
}

func (l *line) top() float32    { return l.y + 0.75*l.size }
func (l *line) bottom() float32 { return l.y - 0.25*l.size }

// layout turns a page's glyphs into its text: lines in reading order, blocks separated
// by a blank line, hyphenated line ends marked for resolveHyphens.
func layout(glyphs []glyph) string {
	var b strings.Builder
	var count [4]int
	slanted := 0
	for _, g := range glyphs {
		if g.rot < 4 {
			count[g.rot]++
		} else {
			slanted++
		}
	}
	foot := footLine(glyphs, count)
	var after []glyph // horizontal lines under a page of turned text: written after it
	for rot := range uint8(4) {
		if count[rot] == 0 {
			continue
		}
		gs := glyphs // all in one direction (most pages): laid out where they are
		if count[rot] < len(glyphs) {
			gs = make([]glyph, 0, count[rot])
			for _, g := range glyphs {
				switch {
				case g.rot != rot:
				case rot == 0 && g.y+0.75*g.size <= foot:
					after = append(after, g)
				default:
					gs = append(gs, g)
				}
			}
		}
		layoutDirection(&b, gs)
	}
	if len(after) > 0 {
		layoutDirection(&b, after)
	}
	if slanted > 0 {
		for _, gs := range slantGroups(glyphs, slanted) {
			layoutDirection(&b, gs)
		}
	}
	return b.String()
}

// footLine is where on the page (its y) the text of a page written mostly in another
// direction than left to right ends at the foot: a page of vertical columns (Japanese
// books), a landscape table turned on its page. Horizontal lines wholly under it, as a
// folio or a footer stands under the columns, read after them; those above it and beside
// it (a running head, a title) before. On a page mostly horizontal it is below the page
// (-Inf): a turned label or an arXiv stamp in the margin keeps the page's lines together.
func footLine(glyphs []glyph, count [4]int) float32 {
	most := uint8(0)
	for rot := range uint8(4) {
		if count[rot] > count[most] {
			most = rot
		}
	}
	foot := float32(math.Inf(-1))
	if most == 0 || count[0] == 0 {
		return foot
	}
	foot = float32(math.Inf(1))
	for _, g := range glyphs {
		if g.rot != most || g.space {
			continue
		}
		// the glyph's lowest point on the page (turn's inverse)
		switch most {
		case 1:
			foot = min(foot, g.x)
		case 2:
			foot = min(foot, -(g.y + 0.75*g.size))
		case 3:
			foot = min(foot, -(g.x + g.w))
		}
	}
	return foot
}

// layoutDirection writes the text of glyphs that run in one direction, turned so that it
// runs along +x.
func layoutDirection(b *strings.Builder, gs []glyph) {
	{
		lines := splitGutters(mergeRows(dropRedrawn(fragments(gs))))
		rtl := pageRTL(lines)
		blocks := cut(lines, rtl, 0)
		// words first, for the page's count of words that pre-base vowel signs start
		// and end (leftSigns), which decides lines that have none
		words := make([][][][]glyph, len(blocks))
		var page leftSigns
		for i, block := range blocks {
			words[i] = make([][][]glyph, len(block))
			for j, l := range block {
				words[i][j] = lineWords(l)
				page.add(countLeftSigns(words[i][j]))
			}
		}
		mixedDirections(blocks, lines) // paradir.go
		texts := make([][]string, len(blocks))
		for i, block := range blocks {
			texts[i] = make([]string, len(block))
			for j, l := range block {
				texts[i][j] = spellLine(l, words[i][j], countLeftSigns(words[i][j]).shaped(page))
			}
		}
		for i, block := range blocks {
			writeBlock(b, block, texts[i], i+1 < len(blocks) && hyphenContinues(block, texts[i], blocks[i+1], texts[i+1]))
		}
	}
}

// fragments groups glyphs in the order drawn into runs along one baseline.
func fragments(gs []glyph) []*line {
	var out []*line
	var cur *line
	var run scriptRun // a second script run read after the first (scriptruns.go)
	for _, g := range gs {
		g.key = g.x
		if cur != nil {
			last := cur.g[len(cur.g)-1]
			if logicalMark(last, g) {
				g.key = last.key // a mark keeps its place after its base
			}
			size := max(g.size, last.size, 1)
			end := last.x + last.w
			if g.text == last.text && abs(g.x-last.x) < 0.1*size && abs(g.y-last.y) < 0.1*size && !nextByAdvance(&last, &g) {
				continue // drawn twice (fake bold, a shadow)
			}
			if dotBelow(last, g) {
				cur.g[len(cur.g)-1].text = norm.NFC.String(last.text + "\u0323")
				continue
			}
			if mapsTo(last, g) {
				g.text, g.key, g.pair = last.text, last.key, true // one arrow, where the arrow is drawn
				cur.g = cur.g[:len(cur.g)-1]
				cur.add(g)
				continue
			}
			if negates(last, g) {
				g.text, g.key = norm.NFC.String(g.text+"\u0338"), last.key
				cur.g = cur.g[:len(cur.g)-1]
				cur.add(g)
				continue
			}
			if !overprinted(last, g) && !stackedRepeat(last, g) { // vdots.go
				// on the line's baseline, or on the glyph before's when that one ends the
				// line: a superscript's second letter ("1st"), raised by more than half its
				// own size (not a text drawn over the line, which goes on inside it)
				inLine := abs(g.y-cur.y) < baselineTol*size || abs(g.y-last.y) < 0.05*size && end >= cur.x1-0.05*size
				if inLine && g.x >= end-0.5*size && g.x-end <= maxLineGap*size {
					if overdrawn(cur, last, g) {
						run = overRun(cur, g) // a string drawn back over the line: read after it (overdrawn.go)
					}
					g.key = run.key(cur, g)
					cur.add(g)
					continue
				}
				if _, accent := combining[last.text]; accent && abs(g.y-cur.y) < baselineTol*size && g.x >= last.x-0.5*size && g.x < end {
					cur.add(g) // the letter under an accent drawn first (\=a), however wide the accent
					continue
				}
				if accentOn(last, g) && g.y >= last.y && g.y-last.y < baselineTol*size && abs(g.y-cur.y) < baselineTol*size {
					cur.add(g) // an accent drawn after its letter, over it (moved up to it, or back)
					continue
				}
				if raisedMark(last, g) {
					cur.add(g) // a mark raised or lowered off its letter's baseline (LuaTeX's dagger alef)
					continue
				}
				if stacked(cur, last, g) {
					run = startRun(cur, last, g)
					g.key = run.key(cur, g)
					cur.add(g)
					continue
				}
				if overMark(cur, last, g) {
					g.key = last.key // after its letter, however far back it starts
					cur.add(g)
					continue
				}
			}
		}
		cur = &line{}
		cur.add(g)
		out = append(out, cur)
	}
	return out
}

// overprintRatio: a glyph less than this fraction of the size of the glyph before or after
// it, drawn over it, is not of its word (overprinted).
const overprintRatio = 0.4

// overprinted says whether g and the glyph drawn before it are of sizes too far apart for
// one word (one less than overprintRatio of the other) and either overlap or go from the
// small to the large: a figure's letter drawn small inside a circle glyph (textopo's helical
// wheels, a 3-point "L" in a 12-point "•"), and the next circle drawn after that letter. They
// are apart, as pdftotext has them, where the line would run them together ("•◦L•◦L•◦E"). A
// mark or a superscript after its letter (at least half its size) and a drop cap's word
// (small after large, apart) still join; pieces on one baseline are joined again by
// mergeRows.
func overprinted(last, g glyph) bool {
	small, big := min(g.size, last.size), max(g.size, last.size)
	if small >= overprintRatio*big || last.w <= 0 || g.w <= 0 {
		return false
	}
	return g.size > last.size || g.x < last.x+last.w-0.05*small && g.x+g.w > last.x+0.05*small
}

// overprintedRow says whether the piece f stays apart from the line l of its row: of sizes
// as far apart as overprinted's, overlapping or on baselines apart.
func overprintedRow(l, f *line) bool {
	small, big := min(l.size, f.size), max(l.size, f.size)
	return small < overprintRatio*big && (f.x0 < l.x1 || abs(f.y-l.y) > 0.1*small)
}

// logicalMark says whether g, drawn after base, is drawn without advance in an Indic
// script (Devanagari to Sinhala, Thai and Lao, Lepcha, Khmer's marks) or is a combining
// mark of Latin, Greek or Cyrillic (combiningMark) after a letter or a mark (letterGlyph):
// a vowel sign, a tone mark or a reph, which
// shapers draw in logical order after the letter it belongs to, placed by its outline, its
// origin often a hair past the next letter's (Lepcha's ran: past the space after its
// letter; a Thai tone mark's by a rounding of the TJ adjustments: "ค" "ื" "อ" sorted
// "คอื", not "คือ"; fpdf2's Khmer vowel signs by their HarfBuzz offsets: "ស" "ួ" "ស" sorted
// "សសួ", not "សួស").
func logicalMark(base, g glyph) bool {
	if g.w > 0.01*g.size {
		return false
	}
	for _, r := range g.text {
		return r >= 0x0900 && r <= 0x0DFF || r >= 0x0E00 && r <= 0x0EFF || lepchaMark(g) ||
			r >= 0x1780 && r <= 0x17FF && unicode.Is(unicode.M, r) || combiningMark(r) && letterGlyph(base)
	}
	return false
}

// combiningMark says whether r is a combining mark of the blocks that Latin, Greek and
// Cyrillic text takes them from (Combining Diacritical Marks and its Supplement, the
// Cyrillic titlo and its kin, combining half marks). XeTeX draws Church Slavonic's titlo
// without advance after its letter, its origin a hair past the next letter's: "Бл҃гословѝ"
// sorted "Блг҃ословѝ".
func combiningMark(r rune) bool {
	return (r >= 0x0300 && r <= 0x036F || r >= 0x0483 && r <= 0x0489 || r >= 0x1DC0 && r <= 0x1DFF || r >= 0xFE20 && r <= 0xFE2F) &&
		unicode.Is(unicode.Mn, r)
}

// firstRune is s's first character (utf8.RuneError when s is empty).
func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// letterGlyph says whether g reads as a letter or a mark (Church Slavonic's combining
// letters carry a titlo too), the base a combining mark drawn after it belongs to. TeX's
// math accents are drawn before their letter, over it ("(", the macron, then 𝑧 for (z̄)):
// a Latin combining mark after a glyph that is neither is placed by its position instead,
// which puts it after the letter it stands over.
func letterGlyph(g glyph) bool {
	r := firstRune(g.text)
	return unicode.IsLetter(r) || unicode.IsMark(r)
}

// negates says whether last is TeX's \not (cmsy's negationslash, U+0338 without advance)
// drawn at the origin of g, the one character it strikes through: = reads ≠, ∈ reads ∉
// (NFC's), where the slash drawn first read before it ("̸=", as a word of its own;
// pdftotext: "6=").
func negates(last, g glyph) bool {
	r, n := utf8.DecodeRuneInString(g.text)
	return last.text == "\u0338" && g.w > 0 && n == len(g.text) && !unicode.IsMark(r) && !g.space && atOrigin(last, g)
}

// atOrigin says whether last, a glyph without advance (TeX's \not or \mapstochar), is
// drawn at the origin of g, the glyph it makes one sign with.
func atOrigin(last, g glyph) bool {
	size := max(g.size, last.size, 1)
	return last.w <= 0.01*size && abs(g.x-last.x) < 0.15*size && abs(g.y-last.y) < 0.1*size
}

// mapsTo says whether last is TeX's \mapstochar (cmsy's "mapsto", read ↦, without advance)
// drawn at the origin of the arrow g that makes \mapsto with it: the two read ↦, where they
// read "↦→" (pdftotext: "7→").
func mapsTo(last, g glyph) bool {
	return last.text == "\u21A6" && g.text == "\u2192" && atOrigin(last, g)
}

// dotBelow says whether g is a period TeX's \d draws under the letter last (the dot below
// of transliterated Sanskrit, "\d{m}" for ṃ): a little under its baseline, within its width.
func dotBelow(last, g glyph) bool {
	r, _ := utf8.DecodeRuneInString(last.text)
	size := max(g.size, last.size, 1)
	return g.text == "." && unicode.IsLetter(r) && utf8.RuneCountInString(last.text) == 1 && g.rot == last.rot &&
		last.y-g.y > 0.1*size && last.y-g.y < 0.45*size &&
		g.x >= last.x-0.05*size && g.x+g.w <= last.x+last.w+0.05*size
}

// overMark says whether g is an Indic vowel sign or other mark drawn over the last glyph
// with an advance of its own: Velthuis's Devanagari fonts draw the e sign as wide as the
// letter, moved back onto it, where a shaper would draw it without advance, and the ra
// stroke under it. It belongs to that letter's word, not to a line of its own.
func overMark(cur *line, last, g glyph) bool {
	if g.text == "" || abs(g.y-cur.y) >= baselineTol*max(g.size, 1) {
		return false
	}
	// a mark first: a vowel sign, or a ra stroke (virama, ra)
	if r, _ := utf8.DecodeRuneInString(g.text); r < 0x0900 || r > 0x0DFF || !unicode.Is(unicode.M, r) {
		return false
	}
	return g.x >= last.x-0.1*g.size && g.x < last.x+last.w
}

// stacked says whether g is a script stacked under or over the last glyphs of cur: TeX
// draws x with both a superscript and a subscript (S_k^new) as the base, the one script,
// then the other back at the base's end, on another baseline than the first script's.
// The second script starts where the first does (both hang on the base's end); a fraction's
// denominator, centred under a narrower numerator, starts before it and is not taken; nor
// is a line under a heading at less than overprintRatio of its size (no script is so small).
// A script drawn back into the line's own text (a footnote mark after its line) is smaller
// than that text, or the text is short (a fraction's numerator, its denominator under
// it); scripts stacked on scripts hang on a base, a glyph before the first script's run,
// at most maxScriptRatio times the script's size, and are short. A drop cap is no base,
// and the lines beside it are no scripts: lettrine's "A" of 2.5 ems on the second line's
// baseline, the first line a line above it; a "Q" on its first line's baseline, under
// which the second line starts, of the first line's size.
func stacked(cur *line, last, g glyph) bool {
	size := max(g.size, last.size, 1)
	if !(g.size < cur.size && direction(g.text) != 1 && direction(last.text) != 1 && abs(g.y-cur.y) < baselineTol*cur.size &&
		abs(g.y-last.y) > 0.15*size && g.size >= overprintRatio*cur.size && g.x >= cur.x0 && g.x < last.x+last.w) {
		return false
	}
	i := len(cur.g) - 1
	start := last.x // where the first script's run starts
	for ; i >= 0 && abs(cur.g[i].y-last.y) < 0.05*size; i-- {
		start = cur.g[i].x
	}
	long := last.x+last.w-start > maxScriptEms*g.size // a run as long as a line
	switch {
	case abs(last.y-cur.y) < 0.05*size: // back into the line's text, or under a numerator
		if g.size >= 0.9*last.size && long {
			return false
		}
	case i < 0 || cur.g[i].size > maxScriptRatio*g.size || long:
		return false // no base before the first script, or one too large for it: a drop cap's
	}
	return g.x >= start-0.15*cur.size
}

// maxScriptRatio is how many times its script's size a base may be at most, and
// maxScriptEms how long, in ems of the script, the first script's run: TeX's scripts are
// 0.67–0.75 of their base's size, a fraction's parts in a script 0.5 (∫ to π/2), a word
// processor's 0.58; a drop cap of two lines is 2.4 or more times its text's, and the line
// beside it runs across the column.
const (
	maxScriptRatio = 2.2
	maxScriptEms   = 12
)

// mergeRows joins fragments on the same baseline that touch or overlap, and orders each
// line's glyphs left to right. Pieces of sizes as far apart as overprinted's stay apart
// unless side by side on one baseline (a figure's small letters and the circles around them).
//
// Space glyphs are no ink: a piece of nothing but spaces is dropped, and the gap between
// two pieces is measured between their inked glyphs. A column whose letters have no text
// (a font without a Unicode mapping: PyMuPDF's test_2635.pdf) leaves its word spaces, whose
// trailing ones otherwise bridge the gutter to the next column's line ("ve-" "respon-"
// "ramente" read across two columns); pdftotext keeps no space glyph either.
func mergeRows(frags []*line) []*line {
	frags = slices.DeleteFunc(frags, func(f *line) bool { return !inked(f) })
	slices.SortStableFunc(frags, func(a, b *line) int { return cmp.Compare(b.y, a.y) })
	var out []*line
	for i := 0; i < len(frags); {
		j := i + 1
		for j < len(frags) && frags[i].y-frags[j].y < rowTol*max(frags[i].size, 1) {
			j++
		}
		row := frags[i:j]
		slices.SortStableFunc(row, func(a, b *line) int { return cmp.Compare(a.x0, b.x0) })
		var open []*line // the row's lines so far; a piece joins the first it fits
	pieces:
		for _, f := range row {
			for _, l := range open {
				gap := maxLineGap * max(l.size, f.size)
				if f.x0-l.x1 <= gap && inkStart(f)-inkEnd(l) <= gap && !collides(l, f) && !overprintedRow(l, f) {
					for _, g := range f.g {
						l.add(g)
					}
					continue pieces
				}
			}
			open = append(open, f)
		}
		out = append(out, open...)
		i = j
	}
	out = joinCascades(out)
	for _, l := range out {
		slices.SortStableFunc(l.g, func(a, b glyph) int { return cmp.Compare(a.key, b.key) })
		l.g = combineAccents(l.g)
		l.rtl = isRTL(l.g)
	}
	return out
}

// inked says whether l holds a glyph other than a space.
func inked(l *line) bool {
	return slices.ContainsFunc(l.g, func(g glyph) bool { return !g.space })
}

// inkStart and inkEnd are where l's glyphs other than spaces start and end.
func inkStart(l *line) float32 {
	x := l.x1
	for _, g := range l.g {
		if !g.space {
			x = min(x, g.x)
		}
	}
	return x
}

func inkEnd(l *line) float32 {
	x := l.x0
	for _, g := range l.g {
		if !g.space {
			x = max(x, g.x+g.w)
		}
	}
	return x
}

// combining maps the spacing accents TeX draws over or under a letter (\'e is "´" and "e"
// placed on each other) to their combining characters.
var combining = map[string]string{
	"`": "\u0300", "\u00B4": "\u0301", "\u02C6": "\u0302", "\u02DC": "\u0303", "\u00AF": "\u0304",
	"\u02D8": "\u0306", "\u02D9": "\u0307", "\u00A8": "\u0308", "\u02DA": "\u030A", "\u02DD": "\u030B",
	"\u02C7": "\u030C", "\u00B8": "\u0327", "\u02DB": "\u0328",
	// \vec's arrow: cmmi's "vector" (texMathFontNames) or a ToUnicode map's U+20D7, drawn
	// with an advance and moved back over its letter, which it follows ("u⃗", not "⃗u")
	"\u20D7": "\u20D7",
}

// accentOn says whether g is a spacing accent (combining) of about the size of the letter
// last whose middle stands over it: the pairs combineAccents joins.
func accentOn(last, g glyph) bool {
	if _, accent := combining[g.text]; !accent || last.space || last.w <= 0 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(last.text)
	mid := g.x + g.w/2
	return unicode.IsLetter(r) && mid > last.x && mid < last.x+last.w && abs(g.size-last.size) < 0.3*last.size
}

// combineAccents puts each spacing accent drawn on a letter (its middle within the
// letter's width) onto the letter, as one character where Unicode has one: "´" over "e"
// reads "é", "¯" over "ı" reads "ı̄", where the words would otherwise break at the accent.
func combineAccents(gs []glyph) []glyph {
	first := slices.IndexFunc(gs, func(g glyph) bool { _, ok := combining[g.text]; return ok })
	if first < 0 {
		return gs // no accent drawn apart: most lines
	}
	out := make([]glyph, first, len(gs))
	copy(out, gs[:first])
	for i := first; i < len(gs); i++ {
		g := gs[i]
		mark, ok := combining[g.text]
		if !ok {
			out = append(out, g)
			continue
		}
		switch {
		case len(out) > 0 && i+1 < len(gs) && arrowOverPair(out[len(out)-1], gs[i+1], g):
			// an arrow over the pair it sorts between (vectorpair.go)
			b := gs[i+1]
			b.text += mark
			out = append(out, b)
			i++
		case i+1 < len(gs) && accentOn(gs[i+1], g):
			b := gs[i+1]
			b.text = norm.NFC.String(b.text + mark)
			out = append(out, b)
			i++
		case len(out) > 0 && accentOn(out[len(out)-1], g):
			b := &out[len(out)-1]
			b.text = norm.NFC.String(b.text + mark)
		default:
			out = append(out, g)
		}
	}
	return out
}

// collides says whether the glyphs of f overprint those of l: two texts drawn over each
// other stay apart, a word drawn into a gap left for it joins. A space drawn over a space
// overprints nothing: Acrobat's touch-up draws a space back over the space before a word
// ahead of the word's rest. (A space over letters still does: Excel's date cells, padded
// with spaces, stay apart.)
func collides(l, f *line) bool {
	if f.x0 >= l.x1-0.2*f.size || len(l.g)*len(f.g) > 1<<16 {
		return false
	}
	for _, a := range f.g {
		for _, b := range l.g {
			lo, hi := max(a.x, b.x), min(a.x+a.w, b.x+b.w)
			if hi-lo > 0.3*min(a.w, b.w) && a.w > 0 && b.w > 0 && !(a.space && b.space) {
				return true
			}
		}
	}
	return false
}

// pageRTL says whether most lines read right to left (columns then go right to left).
func pageRTL(lines []*line) bool {
	n := 0
	for _, l := range lines {
		if l.rtl {
			n++
		}
	}
	return n > len(lines)/2
}

// cut orders lines into blocks by recursive cuts along white space: first between columns,
// then between blocks of one column.
func cut(lines []*line, rtl bool, depth int) [][]*line {
	if len(lines) <= 1 || depth > 40 || len(lines) > maxCutLines {
		return [][]*line{sortLines(lines)}
	}
	if cols := splitColumns(lines); len(cols) > 1 {
		if rtl {
			slices.Reverse(cols)
		}
		if cols = joinUnder(cols); len(cols) == 1 {
			return cutBlocks(lines, rtl, depth)
		}
		var out [][]*line
		for _, c := range cols {
			out = append(out, cut(c, rtl, depth+1)...)
		}
		return out
	}
	return cutBlocks(lines, rtl, depth)
}

// cutBlocks is cut's second step, for lines that part into no columns: blocks of one column.
func cutBlocks(lines []*line, rtl bool, depth int) [][]*line {
	if blocks := splitBlocks(lines); len(blocks) > 1 {
		var out [][]*line
		for _, b := range blocks {
			out = append(out, cut(b, rtl, depth+1)...)
		}
		return out
	}
	if head, rest := headOverColumns(lines); head != nil {
		return append([][]*line{head}, cut(rest, rtl, depth+1)...)
	}
	if rest, foot := footUnderColumns(lines); foot != nil {
		return append(cut(rest, rtl, depth+1), sortLines(foot))
	}
	return [][]*line{sortLines(lines)}
}

// minColumnLines and minColumnEms are the fewest lines, and the width in ems of the widest
// line, of each column headOverColumns parts from its heading: columns of running text, not
// a table's column of short cells (read row by row, as pdftotext reads it).
const (
	minColumnLines = 3
	minColumnEms   = 15
)

// narrow says whether a column's lines are too few or too narrow for running text.
func narrow(col []*line) bool {
	widest := float32(0)
	for _, l := range col {
		widest = max(widest, (l.x1-l.x0)/max(l.size, 1))
	}
	return len(col) < minColumnLines || widest < minColumnEms
}

// maxHeadLines is the most lines headOverColumns takes off the top.
const maxHeadLines = 2

// headOverColumns parts a heading set close above columns of running text, across their
// gutter (less than blockGap of its size above them, so no horizontal cut frees it), from
// the columns: the top one or two lines, when the lines under them part into columns of
// at least minColumnLines lines minColumnEms wide and they do not. Read
// with the columns, the whole block reads row by row across the columns (PyMuPDF's
// test_2635.pdf: a 15-point heading 6 points above two columns of 9.5-point text).
func headOverColumns(lines []*line) (head, rest []*line) {
	s := slices.Clone(lines)
	slices.SortStableFunc(s, func(a, b *line) int { return cmp.Compare(b.top(), a.top()) })
	for n := 1; n <= maxHeadLines && len(s)-n >= 4; n++ {
		if s[n].top() > s[n-1].bottom() {
			return nil, nil // the next line stands beside the head, not under it
		}
		if cols := splitColumns(s[n:]); len(cols) > 1 && slices.IndexFunc(cols, narrow) < 0 {
			return sortLines(s[:n]), s[n:]
		}
	}
	return nil, nil
}

// maxFootLines is the most lines footUnderColumns takes off the foot: a running foot's
// pieces on one baseline (a journal's title, its web address, its page number).
const maxFootLines = 3

// footUnderColumns parts a running foot set close under columns of running text, across
// their gutter, from the columns, as headOverColumns parts a heading: the lowest one to
// maxFootLines lines, when they all stand under the others, further under them than
// blockGap of the size of the line above (the cut splitBlocks makes between lines of that
// size), and the others part into columns of at least minColumnLines lines minColumnEms
// wide. Read with the columns, the whole block reads row by row across them (Wiley's
// editorial in papermage's fixtures: a foot of three pieces, the page number's bar drawn at
// 14.8 points, 6.5 points under two columns of 10-point text, less than the half of its own
// size that splitBlocks asks of a gap beside it; PDF Clown's sample: "PDFClown" in
// 120-point letters 11.6 points under columns of 8-point text). A page number (folio) set
// between the foot and the columns, closer to both than that, stays with the columns and
// the gap is measured over it (the first page of an ACL 2007 paper in science-parse's
// fixtures, P07-1088: "696" 3.7 points under the columns, the foot's two lines 1.9 points
// under it; its columns read row by row).
func footUnderColumns(lines []*line) (rest, foot []*line) {
	s := slices.Clone(lines)
	slices.SortStableFunc(s, func(a, b *line) int { return cmp.Compare(a.bottom(), b.bottom()) })
	for n := 1; n <= maxFootLines && len(s)-n >= 4; n++ {
		top := s[0].top()
		for _, l := range s[1:n] {
			top = max(top, l.top())
		}
		if top >= s[n].bottom() {
			continue // a line above stands beside the foot: the foot goes on
		}
		// the lowest line over the foot other than a page number, which stands with the
		// columns (as a column's last line) however close over the foot
		k := n
		for k < len(s)-1 && folio(s[k]) {
			k++
		}
		if s[k].bottom()-top <= blockGap*max(s[k].size, 1) {
			// no wider apart than lines of the columns' own size: a listing's or an index's
			// line across the gutter (xCJK2uni's code, 0.2 em under the line above), which
			// stays in its place
			return nil, nil
		}
		if cols := splitColumns(s[n:]); len(cols) > 1 && slices.IndexFunc(cols, narrow) < 0 {
			return s[n:], s[:n]
		}
	}
	return nil, nil
}

// maxFolioDigits is the most digits of a page number (folio).
const maxFolioDigits = 4

// folio says whether l is a page number alone: one to maxFolioDigits digits.
func folio(l *line) bool {
	n := 0
	for _, g := range l.g {
		if g.space {
			continue
		}
		for _, r := range g.text {
			if r < '0' || r > '9' {
				return false
			}
			n++
		}
	}
	return n > 0 && n <= maxFolioDigits
}

// sortLines orders lines top to bottom, and lines on one baseline left to right. Baselines
// a rounding apart (roundingGap of an em) are one: a drop cap's lines, kept apart from it,
// set by Td moves at 214.09201 beside the cap's 214.092 (ViTE's manual), read left to right.
func sortLines(lines []*line) []*line {
	slices.SortStableFunc(lines, func(a, b *line) int {
		if abs(a.y-b.y) > roundingGap*max(a.size, b.size, 1) {
			return cmp.Compare(b.y, a.y)
		}
		return cmp.Compare(a.x0, b.x0)
	})
	return lines
}

// roundingGap is the most, in ems, that two baselines meant as one differ by the rounding
// of the moves that set them.
const roundingGap = 0.002

// splitColumns cuts lines at vertical gaps no line crosses, left to right.
func splitColumns(lines []*line) [][]*line {
	s := slices.Clone(lines)
	slices.SortStableFunc(s, func(a, b *line) int { return cmp.Compare(a.x0, b.x0) })
	var out [][]*line
	start, right := 0, s[0].x1
	for i := 1; i < len(s); i++ {
		if s[i].x0-right > columnGap*max(s[i].size, 1) {
			out = append(out, s[start:i])
			start = i
		}
		right = max(right, s[i].x1)
	}
	return append(out, s[start:])
}

// splitBlocks cuts lines at horizontal gaps no line crosses, top to bottom.
func splitBlocks(lines []*line) [][]*line {
	s := slices.Clone(lines)
	slices.SortStableFunc(s, func(a, b *line) int { return cmp.Compare(b.top(), a.top()) })
	var out [][]*line
	start, low := 0, s[0].bottom()
	for i := 1; i < len(s); i++ {
		if low-s[i].top() > blockGap*max(s[i].size, s[i-1].size, 1) {
			out = append(out, s[start:i])
			start = i
		}
		low = min(low, s[i].bottom())
	}
	return append(out, s[start:])
}

// hyphenMark follows a line's final hyphen that may join the next line's first word;
// resolveHyphens decides. capitalMark follows one before a word in capitals after a line
// in lower case, which loses its hyphen only in a word the document writes so elsewhere
// ("Trace-" "Monkey" where it writes "TraceMonkey"), and else stays a compound's hyphen
// ("CNF-" "SAT" is "CNF-SAT").
const (
	hyphenMark  = "\x02"
	capitalMark = "\x03"
)

// compoundStart says whether text, a line ending in a hyphen before a capital, may end in a
// compound's first part: a line of words, its last no option. A line of one word is a
// table's cell or a drawing's label ("update-" beside "Gérer les alternatives" in the
// refcards, xfig's "Motor-" over "Vcc"), and "-array-value-" a name of zsh's (before "The
// …"): they end where they stand.
func compoundStart(text string) bool {
	text = strings.TrimSpace(text)
	k := strings.LastIndexAny(text, " \t")
	return k >= 0 && !strings.HasPrefix(text[k+1:], "-")
}

func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// writeBlock writes a block's lines (texts), a blank line after it; joined, its last line's
// hyphen is marked and the next block follows without the blank line (hyphenContinues).
func writeBlock(b *strings.Builder, lines []*line, texts []string, joined bool) {
	last := len(texts) - 1
	for last >= 0 && texts[last] == "" {
		last--
	}
	for i, text := range texts {
		if text == "" {
			continue
		}
		if i < last && endsSlashBreak(text) && continuesAddress(texts[i+1]) {
			b.WriteString(text[:len(text)-1]) // an address broken after a slash (urlbreaks.go)
			continue
		}
		b.WriteString(text)
		switch {
		case i < last && endsDigitHyphen(text) && continuesCompound(text, texts[i+1]):
			continue // the next line goes on with the same compound: no line break
		case i < last && endsLetterHyphen(text) && continuesNumber(texts[i+1]) && compoundStart(text):
			continue // "UTF-" "8.": a name with a number, its hyphen the text's
		case i == last && joined, i < last && endsHyphen(text) && continuesWord(text, texts[i+1]):
			b.WriteString(hyphenMark)
		case i < last && endsHyphen(text) && startsUpper(texts[i+1]) && compoundStart(text) && lineBelow(lines[i], lines[i+1]):
			b.WriteString(capitalMark)
		}
		b.WriteByte('\n')
	}
	if !joined {
		b.WriteByte('\n')
	}
}

// hyphenContinues says whether block a's last line ends in a hyphen that the next block's
// first line continues: that line right below it (its baseline at most two ems down: a
// text set one and a half spaced, whose lines splitBlocks parts, as INSTEAD's Russian
// manuals are), overlapping it across, of about its size, starting in lower case (or in
// capitals after a word in capitals). pdftotext rejoins such words across its blocks.
func hyphenContinues(a []*line, at []string, b []*line, bt []string) bool {
	if len(a) == 0 || len(b) == 0 || at[len(at)-1] == "" || bt[0] == "" {
		return false
	}
	l, n := a[len(a)-1], b[0]
	size := max(l.size, n.size, 1)
	gap := l.bottom() - n.top()
	text := at[len(at)-1]
	word := strings.TrimRight(text[strings.LastIndexAny(text, " \t")+1:], "-\u2010\u00AD")
	word = strings.TrimLeftFunc(word, func(r rune) bool { return unicode.IsPunct(r) }) // «та-
	if strings.IndexFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) }) >= 0 {
		return false // a code line's "-value-,-default-" before a paragraph, not a broken word
	}
	return endsHyphen(text) && continuesWord(text, bt[0]) &&
		gap >= 0 && gap <= size && abs(l.size-n.size) < 0.2*size && n.x0 < l.x1 && n.x1 > l.x0
}

func endsHyphen(s string) bool {
	r := []rune(s[max(0, len(s)-12):])
	n := len(r)
	return n >= 2 && (r[n-1] == '-' || r[n-1] == '\u2010' || r[n-1] == '\u00AD') && unicode.IsLetter(r[n-2])
}

// endsLetterHyphen says whether s ends in a hard hyphen right after a letter. Before a
// digit that hyphen is the text's, never one of hyphenation, which parts words between
// letters: a name and its number broken across lines ("UTF-" "8." in bibtool's Changes,
// pdfTeX; pdftotext drops the hyphen, "UTF8.").
func endsLetterHyphen(s string) bool {
	return endsHyphen(s) && !strings.HasSuffix(s, "\u00AD")
}

// continuesNumber says whether next, the line after one ending in a hyphen after a
// letter, goes on with a number of that name ("8.", "1999) inkjet", "2.1, LGPL-3"): it
// starts with a digit, and is not a number alone (a folio under a word broken at a page's
// end, "ko-" "4" in lshort-finnish) nor starts with a section's number ("con-" "3.11.44
// incgam(s, x, {g})" in pari's users.pdf, a heading under a column's broken last word).
func continuesNumber(next string) bool {
	r, _ := utf8.DecodeRuneInString(next)
	if !unicode.IsDigit(r) {
		return false
	}
	first, rest, _ := strings.Cut(strings.TrimSpace(next), " ")
	if strings.Trim(first, "0123456789") == "" && rest == "" {
		return false // a number alone
	}
	return !(strings.Count(first, ".") >= 2 && strings.Trim(first, "0123456789.") == "" && rest != "")
}

// endsDigitHyphen says whether s ends in a hyphen right after a digit: never a break of
// hyphenation, which parts words between letters, but a hyphen of the text, at which a
// compound of chemistry or a range of numbers is broken across lines ("H3-" "26",
// "(R/S)-2-methyl-…-2-" "phenylethyl)-…", "2.17-" "2.06" in a paper of CERMINE's; pdftotext
// drops the hyphen, "H326").
func endsDigitHyphen(s string) bool {
	r := []rune(s[max(0, len(s)-12):])
	n := len(r)
	return n >= 2 && (r[n-1] == '-' || r[n-1] == '\u2010') && unicode.IsDigit(r[n-2])
}

// continuesCompound says whether next, the line after text (which ends in a hyphen after a
// digit), goes on with text's compound: it starts with a digit ("H3-" "26"), or with a
// letter after a word that is more than a number ("3,6-" "dione"; a number alone, "5-",
// before a line of words may end a line of its own).
func continuesCompound(text, next string) bool {
	first, _ := utf8.DecodeRuneInString(next)
	if unicode.IsDigit(first) {
		return true
	}
	word := strings.TrimRight(text[strings.LastIndexAny(text, " \t")+1:], "-\u2010")
	return unicode.IsLetter(first) && strings.IndexFunc(word, func(r rune) bool { return !unicode.IsDigit(r) }) >= 0
}

// continuesWord says whether next, the line after text (which ends in a hyphen), may
// continue text's last word: it starts in lower case, or in a capital after a line written
// all in capitals ("LIMIT-" "ED" in a licence's disclaimer, which pdftotext rejoins too; an
// acronym's compound in a line of lower case, "CNF-" "SAT", is marked apart: capitalMark).
func continuesWord(text, next string) bool {
	first, _ := utf8.DecodeRuneInString(next)
	if unicode.IsLower(first) {
		return true
	}
	if !unicode.IsUpper(first) {
		return false
	}
	letters := 0
	for _, r := range text {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 8
}

// lineWords carves a line into words: a word break where glyphs are apart by more than a
// word gap or a space is drawn.
func lineWords(l *line) [][]glyph {
	placeMarks(l.g)
	if l.rtl {
		spacesBeforeTails(l.g)
	}
	tight := l.rtl && tightlyJoined(l.g)
	var spread float32 // the word gap of a line set in wide fixed columns (columns.go)
	if !l.rtl {
		spread = columnSpread(l.g)
	}
	words := [][]glyph{}
	// drawn[i] says a space glyph stands before words[i].
	var drawn []bool
	// The words are carved out of one buffer, each capped at its end so that a later
	// append to one copies it instead of writing over the next.
	buf := make([]glyph, 0, len(l.g))
	var cur []glyph
	var prev *glyph
	var end float32 // where the glyphs before g end: a mark without advance ends nothing
	space := false
	for i := range l.g {
		g := &l.g[i]
		if g.space {
			if len(cur) > 0 && l.roomless(i, end) {
				continue // no word break: the space takes no room
			}
			if len(cur) > 0 {
				words, drawn = append(words, cur), append(drawn, space)
				cur, space = nil, false
			}
			space = true
			prev = g
			continue
		}
		if prev != nil && !prev.space && len(cur) > 0 && !g.onBase && !lepchaMark(*g) {
			// the gap runs from where prev ends, by its width, to g's origin, which is
			// exact: only prev's guessed width makes it unsure
			gap, limit := g.x-end, float32(wordGap)
			if prev.loose {
				limit = guessGap
			} else if tight {
				limit = tightGap
			} else if scriptChange(*prev, *g) {
				limit = scriptGap
			}
			if gap > max(limit*max(prev.size, g.size), spread) || overstruck(*prev, *g) {
				words, drawn = append(words, cur), append(drawn, space)
				cur, space = nil, false
			}
		}
		if len(cur) > 0 && (logicalMark(*prev, *g) || g.onBase || g.w <= 0.01*g.size && allMarks(g.text)) {
			end = max(end, g.x+g.w) // a mark drawn on its letter ends nothing: "التِّينِ"
		} else {
			end = g.x + g.w
		}
		buf = append(buf, *g)
		cur = buf[len(buf)-len(cur)-1 : len(buf) : len(buf)]
		prev = g
	}
	if len(cur) > 0 {
		words, drawn = append(words, cur), append(drawn, space)
	}
	return letterSpaced(words, drawn)
}

// scriptGap is the word gap, in ems, between glyphs of different sizes or baselines
// (scriptChange): pdftotext's, whose words end at such a change and are written with a
// space between when at least 0.03 of the line's font size apart.
const scriptGap = 0.03

// scriptChange says whether g starts a run of another size (by 5% or more) or baseline
// (by more than half a point) than prev's, as a footnote mark raised and smaller does:
// "estimated" and its mark "16" half a point after it (the ICDAR set's eu-010.pdf) are two
// words for pdftotext, where a mark touching its word ("(DMCA)1") stays in it.
// A combining mark (a Devanagari vowel sign set lower, as refcard-hi-a4.pdf's ू) stays with
// its letter.
func scriptChange(prev, g glyph) bool {
	r, _ := utf8.DecodeRuneInString(g.text)
	if unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me) {
		return false
	}
	return abs(g.size-prev.size) >= 0.05*max(g.size, prev.size) || abs(g.y-prev.y) > 0.5
}

// spellLine spells a line's words in logical order; shaped says its pre-base vowel signs
// are drawn left of their consonants, where shapers put them.
func spellLine(l *line, words [][]glyph, shaped bool) string {
	for i, w := range words {
		words[i] = reorderVisual(w)
		if shaped {
			placePreBaseSigns(words[i])
		}
	}
	return textnorm.DropStrayJoiners(lepchaOrder(spell(words, l.rtl)))
}

// overstruck says whether g is another symbol drawn right over prev, at its origin and as
// wide: a figure's circle drawn as "•" and "◦" one over the other. pdftotext reads them
// as two words; letters and marks drawn so (an accent, a vowel sign with an advance) are
// left to the rules for them.
func overstruck(prev, g glyph) bool {
	if g.text == prev.text || g.w < 0.3*g.size || abs(g.x-prev.x) > 0.05*g.size || abs(g.w-prev.w) > 0.05*g.size || abs(g.size-prev.size) > 0.05*g.size {
		return false
	}
	return symbolOnly(g.text) && symbolOnly(prev.text)
}

// symbolOnly is true of a text of symbols and punctuation (no letters, digits or marks).
func symbolOnly(s string) bool {
	for _, r := range s {
		if !unicode.IsSymbol(r) && !unicode.IsPunct(r) {
			return false
		}
	}
	return s != ""
}

// roomless says whether the space glyph l.g[i] leaves no room between the glyphs around
// it: drawn and then taken back, by the TJ adjustment after it or by the next glyph's own
// move to where the space starts or before (XeTeX and dvipdfmx draw a zero-width non-joiner so, inside
// Kurdish and Persian words, with the space glyph), the glyph after it no farther than a word
// gap from end, where the glyph before it ends. pdftotext reads such words whole. Text of an
// ActualText span stands where its glyphs were drawn, not where the text state put it
// (Nastaliq's letters in a list, drawn right to left over the spaces between them): it is
// not taken so.
func (l *line) roomless(i int, end float32) bool {
	for j := i + 1; j < len(l.g); j++ {
		if n := l.g[j]; !n.space {
			sp := l.g[i]
			// taken back by TJ, or by the next glyph's move, or drawn over the glyph before
			back := sp.takenBack || !n.actual && !sp.actual && (n.x <= sp.x+0.05*n.size || sp.x+0.75*sp.w <= end)
			return back && n.x-end <= wordGap*max(n.size, sp.size) && n.x-end > -0.5*n.size
		}
	}
	return false
}

// Letter-spaced lines, as pdftotext reads them: on a line whose words are all single
// glyphs of one character each (a character chart, s p a c e d headings), a gap is a word break only when it is
// wider than 1.3 times the narrowest gap, and at most 0.4 em.
const (
	wideSpacingMul = 1.3
	maxWideSpacing = 0.4
)

// letterCount is the characters of a glyph's text but the marks on them (ϑ̇ is one).
func letterCount(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.Is(unicode.Mn, r) {
			n++
		}
	}
	return n
}

// letterSpaced joins the words of a letter-spaced line whose gaps are no wider than its
// letter spacing (the narrowest gap, drawn spaces' included); words split at a drawn space
// stay apart (pdftotext writes them without a space between: a character chart drawn as
// "a à á" reads "aàá" there).
func letterSpaced(words [][]glyph, drawn []bool) [][]glyph {
	if len(words) < 2 || spacedChart(drawn) { // chartcells.go
		return words
	}
	minGap, size := float32(-1), float32(0)
	for i, w := range words {
		if len(w) != 1 || letterCount(w[0].text) > 1 || w[0].pair {
			// a glyph of two characters (a chart's "ff") is no letter, as in pdftotext, nor is
			// a ↦ of two glyphs ("7→" there)
			return words
		}
		size = max(size, w[0].size)
		if i > 0 {
			gap := w[0].x - (words[i-1][0].x + words[i-1][0].w)
			if minGap < 0 || gap < minGap {
				minGap = gap
			}
		}
	}
	if minGap <= 0 {
		return words
	}
	limit := min(wideSpacingMul*minGap, maxWideSpacing*size)
	out := [][]glyph{words[0]}
	for i := 1; i < len(words); i++ {
		last := out[len(out)-1]
		prev := last[len(last)-1]
		if !drawn[i] && words[i][0].x-(prev.x+prev.w) < limit {
			out[len(out)-1] = append(last, words[i][0])
			continue
		}
		out = append(out, words[i])
	}
	return out
}
