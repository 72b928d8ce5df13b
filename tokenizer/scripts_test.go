package tokenizer

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnicodeScripts checks the UnicodeScripts pre-tokenizer's rules beside the golden
// file's (wiki_scripts): spaces and code points unassigned in Unicode 9.0 have no script and
// stay in the piece before them, leading ones are dropped, kana and U+30FC count as Han.
func TestUnicodeScripts(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"  Hello world", []string{"Hello world"}},
		{"Hello, world", []string{"Hello", ", ", "world"}},
		{"abcΑβγ", []string{"abc", "Αβγ"}},
		{"日本語のカタカナー漢字", []string{"日本語のカタカナー漢字"}},
		{"x 中 y", []string{"x ", "中 ", "y"}},
		{"a\U0001E900b", []string{"a", "\U0001E900", "b"}}, // Adlam (Unicode 9.0)
		{"a\U00011A00b", []string{"a\U00011A00b"}},         // Zanabazar Square (10.0): no script
		{"\U00011A00x", []string{"x"}},
		{"a\tb", []string{"a", "\t", "b"}}, // a tab is Common, only the space has no script
	}
	for _, tt := range tests {
		var got []string
		unicodeScriptsStep{}.split(tt.in, 1, func(p string, _ int) { got = append(got, p) })
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("UnicodeScripts(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
