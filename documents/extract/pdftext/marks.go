package pdftext

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Right-to-left marks (Arabic harakat, shadda, hamza above and below, Hebrew points) are
// drawn without advance on their letter, and their origin is no sure sign of which letter
// that is: LuaTeX draws a mark after its letter in the order read and puts its origin where
// the letter ends on the left, inside the next letter ("فَقَالَ": the fatha of ف stands
// within ق); XeTeX and dvipdfmx draw each cluster turned, mark first, from left to right,
// over a letter whose advance may hold the next mark too (the hamza of "الأخرى" within خ).
// The order drawn tells: shapers keep a mark right after its letter in the order read, so
// in a line drawn right to left the letter is the one drawn just before the mark, in one
// drawn left to right (the order seen) the one drawn just after it — unless the producer
// draws each letter and then its marks left to right (Word through Distiller: SIL's
// specimens). Where the font says where a mark's ink lies (ink.go), the mark stands at its
// ink's middle, and in a run drawn left to right the letter under it is taken of the two
// drawn around it. In a run drawn right to left the order alone decides: a mark over a
// narrow letter (the fatha of lam in "إِلَى") has its ink's middle over the next.

// placeMarks moves each right-to-left mark of gs (a line, left to right) whose letter the
// order drawn tells right after that letter, marks on one letter in the order read, and
// marks it onBase; other glyphs keep their order. gs is changed in place.
func placeMarks(gs []glyph) {
	marks := 0
	for i := range gs {
		if gs[i].w <= 0.01*gs[i].size && rtlMark(gs[i].text) {
			marks++
		}
	}
	if marks == 0 {
		return
	}
	// Indices of gs in the order drawn.
	bySeq := make([]int, len(gs))
	for i := range bySeq {
		bySeq[i] = i
	}
	slices.SortStableFunc(bySeq, func(a, b int) int { return cmp.Compare(gs[a].seq, gs[b].seq) })
	isMark := func(i int) bool { return rtlMark(gs[i].text) }
	base := make([]int, len(gs))
	for i := range base {
		base[i] = -1
	}
	found := false
	for k, i := range bySeq {
		m := gs[i]
		if m.w > 0.01*m.size || !isMark(i) {
			continue
		}
		// The letters drawn just before and after the mark, other marks between.
		p, n := -1, -1
		for j := k - 1; j >= 0 && m.seq-gs[bySeq[j]].seq <= 4; j-- {
			if !isMark(bySeq[j]) {
				p = bySeq[j]
				break
			}
		}
		for j := k + 1; j < len(bySeq) && gs[bySeq[j]].seq-m.seq <= 4; j++ {
			if !isMark(bySeq[j]) {
				n = bySeq[j]
				break
			}
		}
		b := n
		switch {
		case p >= 0 && (n < 0 || gs[p].x > gs[n].x):
			b = p // drawn right to left, in the order read: the mark follows its letter
		case m.inked && p >= 0 && under(m, gs[p]) && !under(m, gs[n]):
			b = p // drawn left to right, the ink's middle over the letter before
		}
		if b < 0 || gs[b].space || !rtlLetter(gs[b].text) {
			continue
		}
		if l := gs[b]; m.x < l.x-0.6*m.size || m.x > l.x+l.w+0.6*m.size {
			continue
		}
		base[i], found = b, true
	}
	if !found {
		return
	}
	// Each letter's marks, in the order read: as drawn in a line drawn right to left,
	// turned in one drawn left to right.
	on := make([][]int, len(gs))
	for _, i := range bySeq {
		if b := base[i]; b >= 0 {
			if gs[b].seq < gs[i].seq {
				on[b] = append(on[b], i)
			} else {
				on[b] = append([]int{i}, on[b]...)
			}
		}
	}
	out := make([]glyph, 0, len(gs))
	for i, g := range gs {
		if base[i] >= 0 {
			continue
		}
		out = append(out, g)
		for _, j := range on[i] {
			m := gs[j]
			m.onBase, m.key = true, g.key
			out = append(out, m)
		}
	}
	copy(gs, out)
}

// rtlLetter says whether s has a letter of a right-to-left script.
func rtlLetter(s string) bool {
	for _, r := range s {
		if isRTLRune(r) && !unicode.Is(unicode.M, r) {
			return true
		}
	}
	return false
}

// under says whether mark m stands within the advance of letter l.
func under(m, l glyph) bool { return m.x >= l.x && m.x <= l.x+l.w }

// Word gaps of a tight right-to-left line, in em: joined scripts draw a word's letters edge
// to edge, and a line TeX shrank hard (AlkalamiSample: \tolerance=1600) parts its words by
// gaps of 0.05 em, half the gap that parts words elsewhere: "تتعامل الحواسيب" read
// "تتعاملالحواسيب". tightlyJoined finds such a line.
const (
	tightGap    = 0.02  // a wider gap parts words on a tight line
	touchingGap = 0.005 // letters this near touch
)

// tightlyJoined says whether gs (a line, left to right) is of right-to-left letters drawn
// edge to edge (at least 10 pairs touch, three times as many as are apart) whose few gaps
// are all between tightGap and wordGap wide (at least 2), with no gap in between: its word
// gaps are the narrow ones. Kerning, which leaves gaps of any width, rules it out. Only
// gaps after a letter that joins the next count (lineText parts no other on a tight line):
// after ر, و, ا a word may go on past a gap ("تصویر", "دریافت").
func tightlyJoined(gs []glyph) bool {
	touching, apart := 0, 0
	var prev *glyph
	for i := range gs {
		g := &gs[i]
		if g.space {
			return false // its spaces are drawn
		}
		if g.w <= 0.01*g.size {
			continue // a mark
		}
		if kashida(g.text) {
			return false // a line stretched by kashidas is no tight line
		}
		if prev != nil && rtlLetter(prev.text) && joinsOn(g.text) {
			gap := (g.x - prev.x - prev.w) / max(prev.size, g.size, 1)
			switch {
			case gap >= -touchingGap && gap <= touchingGap:
				touching++
			case gap >= tightGap && gap <= wordGap:
				apart++
			case gap > wordGap:
			default:
				return false
			}
		}
		prev = g
	}
	return touching >= 10 && apart >= 2 && touching >= 3*apart
}

// joinsOn says whether text ends with an Arabic letter that joins the letter after it
// (dual-joining: not alef, dal, thal, reh, zain, waw, teh marbuta and their kin, which end
// a word's joined run without ending the word).
func joinsOn(text string) bool {
	r, _ := utf8.DecodeLastRuneInString(text)
	switch {
	case r < 0x0620 || r > 0x077F:
		return false
	case r == 0x0621 || r >= 0x0622 && r <= 0x0625 || r == 0x0627 || r == 0x0629 || r >= 0x062F && r <= 0x0632 || r == 0x0648,
		r >= 0x0671 && r <= 0x0677 && r != 0x0674, r >= 0x0688 && r <= 0x0699, r == 0x06C0, r >= 0x06C3 && r <= 0x06CB,
		r == 0x06CD, r == 0x06CF, r == 0x06D2, r == 0x06D3, r == 0x06D5, r == 0x06EE, r == 0x06EF,
		r >= 0x0759 && r <= 0x075B, r == 0x076B, r == 0x076C, r == 0x0771, r == 0x0773, r == 0x0774, r == 0x0778, r == 0x0779:
		return false
	}
	return unicode.IsLetter(r) && r != 0x0640
}

// raisedMark says whether g, drawn right after last, is a right-to-left mark without
// advance on last though off its baseline by more than a line's tolerance: LuaTeX draws
// the dagger alef over a tatweel ("وَلـٰكِنَّهُ") 0.6 em off, which made a line of its own.
func raisedMark(last, g glyph) bool {
	size := max(last.size, 1)
	return g.seq == last.seq+1 && g.w <= 0.01*g.size && abs(g.y-last.y) < size && abs(g.y-last.y) >= baselineTol*size &&
		g.x >= last.x-0.6*size && g.x <= last.x+last.w+0.6*size && rtlMark(g.text) && rtlLetter(last.text)
}
