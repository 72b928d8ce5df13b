package tokenizer

import (
	"encoding/json"
	"fmt"
)

// component is one normalizer, pre-tokenizer, model option set, post-processor or decoder of a
// tokenizer.json: its fields, read on demand with the reference's serde rules — a field with a
// serde default takes it when absent, a required one missing refuses the file (as the
// reference does), and null reads as absent for optional fields only.
type component struct {
	kind   string // "normalizer", "pre-tokenizer", "post-processor", "decoder"
	Type   string
	fields map[string]json.RawMessage
}

// parseComponent reads a component; nil when raw is absent or null.
func parseComponent(kind string, raw json.RawMessage) (*component, error) {
	if isNull(raw) {
		return nil, nil
	}
	c := &component{kind: kind}
	if err := json.Unmarshal(raw, &c.fields); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %w", kind, err)
	}
	if t, ok := c.fields["type"]; ok {
		if err := json.Unmarshal(t, &c.Type); err != nil {
			return nil, fmt.Errorf("%s type is not a string", kind)
		}
	}
	if c.Type == "" {
		return nil, unsupported("%s without a \"type\" (the legacy untyped form)", kind)
	}
	return c, nil
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// name is the component's type for messages.
func (c *component) name() string {
	if c == nil {
		return "none"
	}
	return c.Type
}

func (c *component) errorf(format string, args ...any) error {
	return fmt.Errorf("%s %s: %s", c.kind, c.Type, fmt.Sprintf(format, args...))
}

// get decodes field into v; ok is false when it is absent (or null, with nullable).
func (c *component) get(field string, v any, nullable bool) (bool, error) {
	raw, ok := c.fields[field]
	if !ok || nullable && isNull(raw) {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, c.errorf("field %s: %v", field, err)
	}
	return true, nil
}

// required decodes a field the reference requires.
func (c *component) required(field string, v any) error {
	ok, err := c.get(field, v, false)
	if err == nil && !ok {
		err = c.errorf("missing field %s", field)
	}
	return err
}

// optional decodes a field with a default: v keeps its value when the field is absent.
func (c *component) optional(field string, v any) error {
	_, err := c.get(field, v, false)
	return err
}

// nullable decodes an Option field: absent or null leaves v as it is.
func (c *component) nullable(field string, v any) (bool, error) {
	return c.get(field, v, true)
}

// list reads a field holding a list of components of the same kind.
func (c *component) list(field string) ([]*component, error) {
	var raws []json.RawMessage
	if err := c.required(field, &raws); err != nil {
		return nil, err
	}
	out := make([]*component, 0, len(raws))
	for _, r := range raws {
		sub, err := parseComponent(c.kind, r)
		if err != nil {
			return nil, err
		}
		if sub == nil {
			return nil, c.errorf("null entry in %s", field)
		}
		out = append(out, sub)
	}
	return out, nil
}

// each calls f for every component of a Sequence's list field.
func (c *component) each(field string, f func(*component) error) error {
	subs, err := c.list(field)
	if err != nil {
		return err
	}
	for _, sub := range subs {
		if err := f(sub); err != nil {
			return err
		}
	}
	return nil
}

// pattern reads a Split or Replace pattern: {"String": s} or {"Regex": r}.
func (c *component) pattern() (s string, regex bool, err error) {
	var p struct{ String, Regex *string }
	if err := c.required("pattern", &p); err != nil {
		return "", false, err
	}
	switch {
	case p.String != nil && p.Regex == nil:
		return *p.String, false, nil
	case p.Regex != nil && p.String == nil:
		return *p.Regex, true, nil
	}
	return "", false, c.errorf("pattern must be {\"String\": …} or {\"Regex\": …}")
}

// char reads a field holding exactly one character (a Rust char).
func (c *component) char(field string, def rune) (rune, error) {
	var s string
	ok, err := c.get(field, &s, false)
	if err != nil || !ok {
		if err == nil && def < 0 {
			err = c.errorf("missing field %s", field)
		}
		return def, err
	}
	r := []rune(s)
	if len(r) != 1 {
		return 0, c.errorf("%s %q is not one character", field, s)
	}
	return r[0], nil
}

// behavior reads a SplitDelimiterBehavior field.
func (c *component) behavior(field string, def uint8, required bool) (uint8, error) {
	var s string
	ok, err := c.get(field, &s, false)
	if err != nil {
		return 0, err
	}
	if !ok {
		if required {
			return 0, c.errorf("missing field %s", field)
		}
		return def, nil
	}
	b, known := splitBehaviors[s]
	if !known {
		return 0, c.errorf("unknown %s %q", field, s)
	}
	return b, nil
}
