package tokenizer

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiffTmp(t *testing.T) {
	data, err := os.ReadFile("/tmp/diff.json")
	if err != nil {
		t.Skip()
	}
	var d map[string]json.RawMessage
	json.Unmarshal(data, &d)
	var texts []string
	json.Unmarshal(d["texts"], &texts)
	for _, name := range []string{"qwen3", "llama3", "deepseek_v3", "qwen3_o200k"} {
		var want [][]string
		json.Unmarshal(d[name], &want)
		tk := load(t, name)
		bad := 0
		for i, s := range texts {
			if diff := cmp.Diff(nonNilStrings(want[i]), tk.pieces(s)); diff != "" && bad < 5 {
				bad++
				t.Errorf("%s %q: %s", name, s, diff)
			}
		}
	}
}
