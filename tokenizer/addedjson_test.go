package tokenizer

import (
	"encoding/json"
	"reflect"
	"testing"
)

// addedTokenCases are added_tokens values: the hand-read ones and the ones left to
// encoding/json (which must then give the same tokens or the same error).
var addedTokenCases = []struct {
	raw  string
	hand bool // read by hand
}{
	{`[]`, true},
	{` [ ] `, true},
	{`[{"id": 0, "content": "<pad>", "single_word": false, "lstrip": true, "rstrip": false, "normalized": false, "special": true}]`, true},
	{"[\n  {\n    \"id\": 7,\n    \"content\": \"a\\n\\u00e9\\\"\",\n    \"special\": false\n  },\n  {\"content\": \"▁b\", \"normalized\": true}\n]", true},
	{`[{"id": 1, "content": "x", "id": 2}]`, true},
	{`[{"id": 01, "content": "x"}]`, false},
	{`[{"id": -1, "content": "x"}]`, false},
	{`[{"id": 1.0, "content": "x"}]`, false},
	{`[{"ID": 1, "Content": "x"}]`, false},
	{`[{"id": 1, "content": "x", "extra": [1, 2]}]`, false},
	{`[{"id": 1, "content": null}]`, false},
	{`[null]`, false},
	{"[{\"content\": \"a\x01b\"}]", false},
	{"[{\"content\": \"a\xffb\"}]", false},
	{`[{"content": "\ud800"}]`, true}, // a lone surrogate: the string alone goes to encoding/json
	{`[{"special": tru}]`, false},
	{`[{"special": truex}]`, false},
	{`[{"id": 1,}]`, false},
	{`[{"id": 1},]`, false},
	{`[{"id": 1}] x`, false},
	{`{"id": 1}`, false},
}

func TestParseAddedTokens(t *testing.T) {
	for _, c := range addedTokenCases {
		_, hand := scanAddedTokens([]byte(c.raw))
		if hand != c.hand {
			t.Errorf("%q: read by hand %v, want %v", c.raw, hand, c.hand)
		}
		checkAddedTokens(t, []byte(c.raw))
	}
}

// checkAddedTokens fails when parseAddedTokens differs from encoding/json on raw.
func checkAddedTokens(t *testing.T, raw []byte) {
	t.Helper()
	got, err := parseAddedTokens(raw)
	var want []addedTokenJSON
	wantErr := json.Unmarshal(raw, &want)
	if wantErr == nil {
		wantErr = checkAddedFields(raw)
	}
	if (err == nil) != (wantErr == nil) || err == nil && !reflect.DeepEqual(got, want) {
		t.Errorf("%q: got %+v, %v; encoding/json gives %+v, %v", raw, got, err, want, wantErr)
	}
}

// FuzzAddedTokens checks the hand-read added_tokens against encoding/json.
//
//	go test -run='^$' -fuzz=FuzzAddedTokens -fuzztime=20s ./tokenizer
func FuzzAddedTokens(f *testing.F) {
	for _, c := range addedTokenCases {
		f.Add([]byte(c.raw))
	}
	f.Fuzz(checkAddedTokens)
}
