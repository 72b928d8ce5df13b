package chat

import (
	"encoding/json"
	"fmt"
)

// addToolKeys adds a message's tool keys (tool_calls, tool_call_id, name, tools) to its
// template value mm, each only when set: templates test them with "in" and "is defined".
func addToolKeys(mm map[string]any, m Message) error {
	if len(m.ToolCalls) > 0 {
		calls := make([]any, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			v, err := toolValue(callDocument(c))
			if err != nil {
				return fmt.Errorf("tool call %d: %v", i, err)
			}
			calls[i] = v
		}
		mm["tool_calls"] = calls
	}
	if m.ToolCallID != "" {
		mm["tool_call_id"] = m.ToolCallID
	}
	if m.Name != "" {
		mm["name"] = m.Name
	}
	if m.Tools != "" {
		mm["tools"] = m.Tools
	}
	return nil
}

// callDocument is a call as OpenAI's API and transformers write it, arguments a JSON object
// when they are one and a string otherwise.
func callDocument(c ToolCall) []byte {
	var args json.RawMessage = c.Arguments
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		args, _ = json.Marshal(string(c.Arguments))
	}
	id, _ := json.Marshal(c.ID)
	name, _ := json.Marshal(c.Name)
	return fmt.Appendf(nil, `{"id": %s, "type": "function", "function": {"name": %s, "arguments": %s}}`, id, name, args)
}

// PythonJSON re-encodes a JSON document as Python's json.dumps(x, ensure_ascii=False) writes
// it (", " and ": " separators), its objects' keys in their written order: what a template's
// tojson prints, for text the caller puts into a message itself.
func PythonJSON(doc []byte) (string, error) {
	v, err := toolValue(doc)
	if err != nil {
		return "", err
	}
	return pyJSON{item: ", ", key: ": "}.encode(v)
}
