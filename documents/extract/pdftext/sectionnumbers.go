package pdftext

import (
	"slices"
	"strings"
)

// XePersian's section numbers. XePersian sets a dotted number part by part from right to
// left: section 1.1.2 is drawn "۲.۱.۱", to be read from the right. The bidirectional
// algorithm, which EdgeChat follows as pdftotext, Word and LibreOffice do, keeps a run of
// digits and dots in the order drawn, so the text read "۲.۱.۱" for 1.1.2 (lshort-persian's
// contents and headings). The drawing alone cannot tell the two conventions apart; the
// document's sequence can: in a numbering the last part varies fastest (1.1.1, 1.1.2,
// 1.1.3), and where the numbers that start lines mostly vary in their first part instead
// (۱.۲.۱, ۲.۲.۱, ۳.۲.۱: lshort-persian's 142 such steps against none), the document drew
// them reversed. Only numbers in Arabic-Indic digits at a line's start are turned; those
// inside lines (references, and decimals such as "۳.۱۴") stay as drawn.

// reversedSectionNumbers turns around the parts of the dotted Arabic-Indic numbers that
// start lines when the document's sequence of them shows XePersian's order.
func reversedSectionNumbers(pages []Page) {
	var prev []int
	first, last := 0, 0
	for _, p := range pages {
		for line := range strings.SplitSeq(p.Text, "\n") {
			parts, _, ok := leadingSectionNumber(line)
			if !ok {
				continue
			}
			if len(prev) == len(parts) {
				k := len(parts)
				if prev[0]+1 == parts[0] && slices.Equal(prev[1:], parts[1:]) {
					first++
				}
				if prev[k-1]+1 == parts[k-1] && slices.Equal(prev[:k-1], parts[:k-1]) {
					last++
				}
			}
			prev = parts
		}
	}
	if first < 4 || first <= 3*last {
		return
	}
	for i := range pages {
		lines := strings.Split(pages[i].Text, "\n")
		for j, line := range lines {
			if _, n, ok := leadingSectionNumber(line); ok {
				parts := strings.Split(line[:n], ".")
				slices.Reverse(parts)
				lines[j] = strings.Join(parts, ".") + line[n:]
			}
		}
		pages[i].Text = strings.Join(lines, "\n")
	}
}

// leadingSectionNumber reads a number of two or more parts of Arabic-Indic digits (one of
// the two sets) joined by dots at the start of line, followed by a space or the line's end:
// its parts' values and its length in bytes.
func leadingSectionNumber(line string) (parts []int, n int, ok bool) {
	var zero rune
	v, digits := 0, 0
	for i, r := range line {
		switch {
		case r >= 0x06F0 && r <= 0x06F9 || r >= 0x0660 && r <= 0x0669:
			z := rune(0x0660) // the set's zero
			if r >= 0x06F0 {
				z = 0x06F0
			}
			if zero != 0 && z != zero {
				return nil, 0, false
			}
			zero = z
			v = v*10 + int(r-z)
			digits++
		case r == '.' && digits > 0:
			parts = append(parts, v)
			v, digits = 0, 0
		case (r == ' ' || r == '\t') && digits > 0 && len(parts) > 0:
			return append(parts, v), i, true
		default:
			return nil, 0, false
		}
		if digits > 6 {
			return nil, 0, false
		}
	}
	if digits > 0 && len(parts) > 0 {
		return append(parts, v), len(line), true
	}
	return nil, 0, false
}
