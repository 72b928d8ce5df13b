package textnorm

import "testing"

func TestDropStrayJoinersJoiners(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"Persian keeps its non-joiner between letters", "می\u200cخواهم", "می\u200cخواهم"},
		{"Devanagari keeps it after a virama", "क्\u200cष", "क्\u200cष"},
		{"at a word's start and end", "日本語 \u200cipaex\u200c という", "日本語 ipaex という"},
		{"beside a CJK character", "日本語\u200cLaTeX", "日本語LaTeX"},
		{"at the line's ends and doubled", "\u200c\u200cab\u200c", "ab"},
		{"none", "plain", "plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DropStrayJoiners(tt.in); got != tt.want {
				t.Errorf("DropStrayJoiners(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
