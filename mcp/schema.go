package mcp

import (
	"encoding/json"
	"math"
)

// ModelSchema is a tool's input schema as the model is held to it while it writes a call:
// the keywords that constrained decoding cannot enforce token by token (regular expressions,
// divisibility, conditions, counted keys, and number bounds other than a minimum of 0 or a
// short integer range) are left out, and an object that names its properties gets no others
// unless it says so (a model with a free hand invents keys). The server still validates the
// arguments against its full schema and answers a failed call the model can read.
func ModelSchema(schema json.RawMessage) json.RawMessage {
	var v any
	if len(schema) == 0 || json.Unmarshal(schema, &v) != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	b, err := json.Marshal(loosen(v))
	if err != nil {
		return schema
	}
	return b
}

// unenforced are the keywords ModelSchema drops.
var unenforced = []string{"pattern", "patternProperties", "multipleOf", "minProperties", "maxProperties", "uniqueItems",
	"contains", "minContains", "maxContains", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
	"dependencies", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "$schema"}

// maxIntRange is the widest integer range kept (the grammar lists its values).
const maxIntRange = 4096

// loosen drops the unenforced keywords from a schema and, by the keywords that hold
// schemas, from the schemas inside it (property names are names, not keywords).
func loosen(v any) any {
	s, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for _, k := range unenforced {
		delete(s, k)
	}
	loosenBounds(s)
	if _, ok := s["properties"]; ok {
		if _, set := s["additionalProperties"]; !set {
			s["additionalProperties"] = false // the model writes the named arguments, no others
		}
	}
	for _, k := range []string{"properties", "$defs", "definitions"} {
		if m, ok := s[k].(map[string]any); ok {
			for name, sub := range m {
				m[name] = loosen(sub)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if sub, ok := s[k]; ok {
			s[k] = loosen(sub)
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if list, ok := s[k].([]any); ok {
			for i, sub := range list {
				list[i] = loosen(sub)
			}
		}
	}
	return s
}

// loosenBounds keeps a minimum of 0 and short integer ranges, and drops other bounds.
func loosenBounds(s map[string]any) {
	lo, hasLo := s["minimum"].(float64)
	hi, hasHi := s["maximum"].(float64)
	_, exLo := s["exclusiveMinimum"]
	_, exHi := s["exclusiveMaximum"]
	if s["type"] == "integer" && hasLo && hasHi && !exLo && !exHi && hi >= lo && hi-lo < maxIntRange && lo == math.Trunc(lo) {
		return
	}
	delete(s, "maximum")
	delete(s, "exclusiveMaximum")
	delete(s, "exclusiveMinimum")
	if hasLo && lo != 0 {
		delete(s, "minimum")
	}
}
