package pdftext

import (
	"testing"

	"golang.org/x/text/unicode/bidi"
)

func TestClosingBracket(t *testing.T) {
	n := 0
	for r := rune(0); r <= 0x10FFFF; r++ {
		if p, _ := bidi.LookupRune(r); !p.IsOpeningBracket() {
			continue
		}
		n++
		c := closingBracket(r)
		if p, _ := bidi.LookupRune(c); !p.IsBracket() || p.IsOpeningBracket() {
			t.Errorf("%U %c: %U is no closing bracket", r, r, c)
		}
	}
	if n != 64 {
		t.Errorf("%d opening brackets, want BidiBrackets.txt's 64", n)
	}
}

func TestBracketPairs(t *testing.T) {
	items := []string{"[", "a", "(", "b", "]", ")", "(", "c", ")", "]"}
	got := bracketPairs(items)
	// "(" at 2 finds no ")" before "]" at 4, which closes "[" at 0 (BD16 drops the "(").
	want := [][2]int{{0, 4}, {6, 8}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %v, want %v", got, want)
	}
}
