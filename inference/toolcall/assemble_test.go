package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/reply"
)

var (
	hermes  = &Format{Name: "hermes", Open: "<tool_call>", Close: "</tool_call>", ArgsKey: "arguments"}
	mistral = &Format{Name: "mistral", Open: "[TOOL_CALLS]", ArgsKey: "arguments", List: true}
	llama   = &Format{Name: "llama3", ArgsKey: "parameters", OneCall: true}
)

var assembleCases = []struct {
	name  string
	f     *Format
	in    string
	calls []reply.ToolCall // ids are call0, call1, …
}{
	{"hermes", hermes, "\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Bern\", \"q\": \"a}b\\\"{\"}}\n",
		[]reply.ToolCall{{ID: "call0", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Bern", "q": "a}b\"{"}`)}}},
	{"hermes compact", hermes, `{"name":"now","arguments":{}}`,
		[]reply.ToolCall{{ID: "call0", Name: "now", Arguments: json.RawMessage(`{}`)}}},
	{"mistral list", mistral, ` [{"name": "a", "arguments": {"x": [1, {"y": 2}]}}, {"name": "b\u00e9", "arguments": {}}]`,
		[]reply.ToolCall{{ID: "call0", Name: "a", Arguments: json.RawMessage(`{"x": [1, {"y": 2}]}`)}, {ID: "call1", Name: "bé", Arguments: json.RawMessage(`{}`)}}},
	{"llama parameters", llama, `{"name": "search", "parameters": {"query": "Zürich"}}`,
		[]reply.ToolCall{{ID: "call0", Name: "search", Arguments: json.RawMessage(`{"query": "Zürich"}`)}}},
}

// The calls and their streamed parts are the same however the output is cut into chunks.
func TestAssembler(t *testing.T) {
	for _, tc := range assembleCases {
		t.Run(tc.name, func(t *testing.T) {
			for chunk := 1; chunk <= len(tc.in); chunk++ {
				a := NewAssembler(tc.f, 0)
				n := 0
				a.newID = func() string { n++; return fmt.Sprintf("call%d", n-1) }
				var stream reply.ToolCalls
				for i := 0; i < len(tc.in); i += chunk {
					parts, err := a.Add([]byte(tc.in[i:min(i+chunk, len(tc.in))]))
					if err != nil {
						t.Fatalf("chunk %d: %v", chunk, err)
					}
					for _, p := range parts {
						if err := stream.Add(p); err != nil {
							t.Fatal(err)
						}
					}
				}
				if !a.Done() {
					t.Fatalf("chunk %d: not done", chunk)
				}
				if diff := cmp.Diff(tc.calls, a.Calls()); diff != "" {
					t.Fatalf("chunk %d: calls (-want +got):\n%s", chunk, diff)
				}
				if diff := cmp.Diff(tc.calls, stream.Calls()); diff != "" {
					t.Fatalf("chunk %d: streamed parts (-want +got):\n%s", chunk, diff)
				}
			}
		})
	}
}

// Output in another shape is refused, naming what is wrong.
func TestAssemblerRefuses(t *testing.T) {
	for _, in := range []string{`{"arguments": {}, "name": "x"}`, `["x"]`, `{"name": "x", "args": {}}`, `{"name": "x", "arguments": {}}}`} {
		a := NewAssembler(hermes, 0)
		_, err := a.Add([]byte(in))
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", in, err)
		}
	}
}

func FuzzAssembler(f *testing.F) {
	for _, tc := range assembleCases {
		f.Add(tc.in, tc.f.List)
	}
	f.Fuzz(func(t *testing.T, in string, list bool) {
		fm := hermes
		if list {
			fm = mistral
		}
		a := NewAssembler(fm, 0)
		var stream reply.ToolCalls
		for _, piece := range strings.SplitAfter(in, ",") {
			parts, err := a.Add([]byte(piece))
			for _, p := range parts {
				if err := stream.Add(p); err != nil {
					t.Fatalf("parts out of order: %v", err)
				}
			}
			if err != nil {
				return
			}
		}
	})
}
