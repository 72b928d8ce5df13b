package main

import (
	"reflect"
	"testing"
)

func TestWordsSkipsControlOnlyTokens(t *testing.T) {
	tests := []struct {
		text  string
		loose bool
		want  []string
	}{
		{"a \x17 b", false, []string{"a", "b"}},
		{"\x17\x17 \x01", false, nil},
		{"a\x17b c", false, []string{"a\x17b", "c"}},   // a control character inside a word stays part of it
		{"x \u0085\u0090 y", true, []string{"x", "y"}}, // C1 controls too
		{"word.", true, []string{"word"}},
	}
	for _, tt := range tests {
		if got := words([]byte(tt.text), tt.loose); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("words(%q, %v) = %q, want %q", tt.text, tt.loose, got, tt.want)
		}
	}
}
