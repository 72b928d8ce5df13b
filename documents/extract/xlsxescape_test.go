package extract

import "testing"

// TestUnescapeXString undoes spreadsheet strings' _xHHHH_ escapes; a character beyond the
// BMP, escaped as its two UTF-16 halves (PhpSpreadsheet's issue.4724.xlsx "_xD801__xDC05_"),
// is one character, where each half read as U+FFFD.
func TestUnescapeXString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"line_x000D_\nbreak", "line \nbreak"},
		{"A_x005F_x0030_B", "A_x0030_B"},
		{"ABC_x0031__x0032__x0033_DEF", "ABC123DEF"},
		{"_xC1EF_", "쇯"},
		{"_xD801__xDC05_", "𐐅"},
		{"a_xD83D__xDE00_b", "a😀b"},
		{"_xD801__x0038_", "\uFFFD8"}, // a lone high half
		{"_x0039__xDC05_", "9\uFFFD"}, // a lone low half
		{"_xDF39__xDC05_", "\uFFFD\uFFFD"},
		{"_xD801_", "\uFFFD"},
		{"_xD801__xZZ05_", "\uFFFD_xZZ05_"},
	} {
		if got := unescapeXString(c.in); got != c.want {
			t.Errorf("unescapeXString(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
