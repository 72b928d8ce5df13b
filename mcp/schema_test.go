package mcp

import (
	"encoding/json"
	"testing"
)

func TestModelSchema(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, `{"type":"object"}`},
		{`{"type":"object","properties":{"count":{"type":"number","minimum":1,"maximum":10},"n":{"type":"integer","minimum":1,"maximum":10}}}`,
			`{"additionalProperties":false,"properties":{"count":{"type":"number"},"n":{"maximum":10,"minimum":1,"type":"integer"}},"type":"object"}`},
		// A property named like a keyword stays; the keyword inside it goes.
		{`{"type":"object","properties":{"pattern":{"type":"string","pattern":"^a"}},"$schema":"x","additionalProperties":{"type":"number","minimum":0,"exclusiveMaximum":5}}`,
			`{"additionalProperties":{"minimum":0,"type":"number"},"properties":{"pattern":{"type":"string"}},"type":"object"}`},
		{`{"anyOf":[{"type":"array","items":{"type":"string","pattern":"x"},"uniqueItems":true},{"not":{"type":"null"}}],"$defs":{"d":{"multipleOf":2}}}`,
			`{"$defs":{"d":{}},"anyOf":[{"items":{"type":"string"},"type":"array"},{}]}`},
	} {
		got := ModelSchema(json.RawMessage(tc.in))
		if string(got) != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// Every tool of the reference servers is offered to the model once loosened.
func TestReplyToolsEverything(t *testing.T) {
	for _, s := range []ServerConfig{everything(t), filesystem(t)} {
		h := NewHost(Config{Servers: []ServerConfig{s}})
		offered, errs := h.Tools(t.Context())
		if len(errs) > 0 || len(offered) < 5 {
			t.Fatalf("%s: %d tools, %v", s.Name, len(offered), errs)
		}
		tools, errs := ReplyTools(offered)
		if len(errs) > 0 || len(tools) != len(offered) {
			t.Errorf("%s: %d of %d tools offered: %v", s.Name, len(tools), len(offered), errs)
		}
		h.Close()
	}
}
