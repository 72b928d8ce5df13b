package models

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIDList reads eos_token_id as generation_config.json files write it: Llama 2 one id,
// Phi-3.5 [32007, 32001, 32000], Gemma 3 [1, 106].
func TestIDList(t *testing.T) {
	tests := []struct {
		json string
		want IDList
		bad  bool
	}{
		{`{"eos_token_id": 2}`, IDList{2}, false},
		{`{"eos_token_id": [32007, 32001, 32000]}`, IDList{32007, 32001, 32000}, false},
		{`{"eos_token_id": [1, 106]}`, IDList{1, 106}, false},
		{`{"eos_token_id": null}`, nil, false},
		{`{}`, nil, false},
		{`{"eos_token_id": "</s>"}`, nil, true},
	}
	for _, tt := range tests {
		var g GenerationDefaults
		err := json.Unmarshal([]byte(tt.json), &g)
		if (err != nil) != tt.bad {
			t.Errorf("%s: error %v, want error %v", tt.json, err, tt.bad)
			continue
		}
		if diff := cmp.Diff(tt.want, g.EOSTokenID); !tt.bad && diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.json, diff)
		}
	}
}
