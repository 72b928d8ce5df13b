package pdftext

import (
	"slices"
	"unicode"
)

// reorderLevels turns items between drawing order and logical order by their embedding
// levels (bidiLevels): the bidirectional algorithm's rule L2, which is its own inverse here,
// with the paired signs of right-to-left runs mirrored (rule L4: drawn with the glyph of
// their mirror). items is not changed.
func reorderLevels(items []string, levels []int) []string {
	out := slices.Clone(items)
	lv := slices.Clone(levels)
	for i := range out {
		if m, ok := bidiMirror[out[i]]; ok && lv[i] == 1 {
			out[i] = m
		}
	}
	for low := 1; low <= 2; low++ {
		for i := 0; i < len(out); {
			if lv[i] < low {
				i++
				continue
			}
			j := i
			for j < len(out) && lv[j] >= low {
				j++
			}
			slices.Reverse(out[i:j])
			slices.Reverse(lv[i:j])
			i = j
		}
	}
	return out
}

// visualOrder is a line of text in logical order as a viewer draws it, left to right: the
// characters, each with the marks after it, of a line with right-to-left letters reordered
// by the levels spell reads drawn text by, so that what EdgeChat draws for a form field
// without an appearance (a Hebrew city chosen in a list, "ירושלים") reads back as the
// value; drawn in logical order it read reversed ("םילשורי").
func visualOrder(line string) []string {
	var items []string
	rtl, ltr := 0, 0
	for _, r := range line {
		switch {
		case isRTLRune(r) && !unicode.Is(unicode.M, r):
			rtl++
		case unicode.IsLetter(r):
			ltr++
		}
		if len(items) > 0 && unicode.Is(unicode.M, r) {
			items[len(items)-1] += string(r)
			continue
		}
		items = append(items, string(r))
	}
	if rtl == 0 {
		return items
	}
	return reorderLevels(items, bidiLevels(items, rtl > ltr))
}
