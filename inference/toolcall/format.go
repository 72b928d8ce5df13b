// Package toolcall knows how each model family writes tool calls: the markers around them,
// the shape of their JSON (the grammar that constrains them), and how to read the calls back
// out of the model's output as they form.
package toolcall

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"strings"

	"edgechat/inference/sample/grammar"
	"edgechat/reply"
)

// Format is one family's way of writing tool calls.
type Format struct {
	// Name names the family: "hermes" (Qwen 2.5/3, Hermes), "llama3", "mistral", "phi4".
	Name string
	// Open is the token that opens a call (or a list of calls); "" for Llama 3, whose calls
	// are bare JSON at the start of the answer.
	Open string
	// AltOpen is another token that opens a call (Llama 3's <|python_tag|>), "" for none.
	AltOpen string
	// Close is the token that ends a call or a list, "" when the turn simply ends.
	Close string
	// ArgsKey is the key of the arguments: "arguments", or "parameters" for Llama 3.
	ArgsKey string
	// List says the calls are one JSON array after Open (Mistral, Phi-4); otherwise each
	// call is one object, each after its own Open (Hermes).
	List bool
	// OneCall says the family writes one call per turn (Llama 3's templates refuse more).
	OneCall bool
}

// Detect finds the tool-call format of a model from its chat template and its vocabulary
// (hasToken reports whether a token of that text exists); nil when the model has none.
func Detect(template string, hasToken func(string) bool) *Format {
	switch {
	case strings.Contains(template, "[TOOL_CALLS]"):
		return &Format{Name: "mistral", Open: "[TOOL_CALLS]", ArgsKey: "arguments", List: true}
	case strings.Contains(template, "<tool_call>"):
		return &Format{Name: "hermes", Open: "<tool_call>", Close: "</tool_call>", ArgsKey: "arguments"}
	case strings.Contains(template, `"parameters": `) && strings.Contains(template, "ipython"):
		f := &Format{Name: "llama3", ArgsKey: "parameters", OneCall: true}
		if hasToken("<|python_tag|>") {
			f.AltOpen = "<|python_tag|>"
		}
		return f
	case strings.Contains(template, "<|tool|>") && hasToken("<|tool_call|>"):
		f := &Format{Name: "phi4", Open: "<|tool_call|>", ArgsKey: "arguments", List: true}
		if hasToken("<|/tool_call|>") {
			f.Close = "<|/tool_call|>"
		}
		return f
	}
	return nil
}

// Grammar is the grammar of what follows Open: one call (or a list of them, at most one
// when one is set) naming one of tools, its arguments valid against the tool's schema.
func (f *Format) Grammar(tools []reply.Tool, one bool) (*grammar.Grammar, error) {
	calls := make([]grammar.Call, len(tools))
	for i, t := range tools {
		calls[i] = grammar.Call{Name: t.Name, Parameters: t.Parameters}
	}
	shape := grammar.CallShape{ArgsKey: f.ArgsKey, List: f.List}
	if one {
		shape.Max = 1
	}
	return grammar.ToolCalls(calls, shape)
}

// Text writes calls as the model writes them, for templates that show an assistant turn's
// calls only through its text (Phi-4-mini).
func (f *Format) Text(calls []reply.ToolCall) string {
	var objs []string
	for _, c := range calls {
		name, _ := json.Marshal(c.Name)
		objs = append(objs, `{"name": `+string(name)+`, "`+f.ArgsKey+`": `+string(Arguments(c.Arguments))+`}`)
	}
	body := strings.Join(objs, ", ")
	if f.List {
		body = "[" + body + "]"
	}
	switch {
	case f.List:
		return f.Open + body + f.Close
	case f.Open != "":
		var b strings.Builder
		for i, o := range objs {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(f.Open + "\n" + o + "\n" + f.Close)
		}
		return b.String()
	}
	return body
}

// Arguments is a call's arguments as a JSON object text: "{}" when empty.
func Arguments(a json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(a)) == 0 {
		return json.RawMessage("{}")
	}
	return a
}

// NewID returns a fresh tool call id, as OpenAI writes them ("call_" and 24 letters and
// digits).
func NewID() string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var b [24]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return "call_" + string(b[:])
}

// TemplateID is the id a chat template is shown for a call id: the id itself when it is 9
// letters and digits, else 9 derived from it (Mistral's templates refuse any other id; the
// same id always maps to the same 9, so a call and its result still match).
func TemplateID(id string) string {
	if len(id) == 9 && isAlnum(id) {
		return id
	}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	sum := sha256.Sum256([]byte(id))
	out := make([]byte, 9)
	for i := range out {
		out[i] = alnum[int(sum[i])%len(alnum)]
	}
	return string(out)
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
