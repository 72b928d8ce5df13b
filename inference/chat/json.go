package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// toolValue turns one Options.Tools element into the value the template sees: JSON objects
// become gonja Dicts, which keep their keys in written order like Python dicts do, so that
// tojson prints them the way transformers does.
func toolValue(tool any) (any, error) {
	var doc []byte
	switch t := tool.(type) {
	case json.RawMessage:
		doc = t
	case []byte:
		doc = t
	case string:
		doc = []byte(t)
	default:
		b, err := json.Marshal(tool)
		if err != nil {
			return nil, fmt.Errorf("encode as JSON: %w", err)
		}
		doc = b
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, fmt.Errorf("not a JSON document (%w): %.60q", err, doc)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON document: %.60q", doc)
	}
	return v, nil
}

// decodeOrdered reads one JSON value: objects as exec.Dict (ordered), arrays as []any, numbers
// as int64 or float64, strings, bools and nil.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			d := exec.Dict{Pairs: []*exec.Pair{}}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				d.Pairs = append(d.Pairs, &exec.Pair{Key: exec.AsValue(k), Value: exec.AsValue(v)})
			}
			_, err := dec.Token() // '}'
			return d, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ']'
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		return t.Float64()
	default:
		return t, nil
	}
}

// pyJSON encodes values exactly as Python's json.dumps with ensure_ascii=False.
type pyJSON struct {
	item, key string // separators
	indent    string
	pretty    bool
	sortKeys  bool
}

func (p pyJSON) encode(v any) (string, error) {
	var b strings.Builder
	if err := p.write(&b, v, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

func (p pyJSON) newline(b *strings.Builder, level int) {
	if p.pretty {
		b.WriteByte('\n')
		for range level {
			b.WriteString(p.indent)
		}
	}
}

type kv struct {
	key string
	val any
}

func (p pyJSON) write(b *strings.Builder, v any, level int) error {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
		return nil
	case *exec.Value:
		if t.IsNil() {
			b.WriteString("null")
			return nil
		}
		return p.write(b, t.Interface(), level)
	case exec.Dict:
		pairs := make([]kv, len(t.Pairs))
		for i, pair := range t.Pairs {
			pairs[i] = kv{pair.Key.String(), pair.Value}
		}
		return p.object(b, pairs, level)
	case *exec.Dict:
		return p.write(b, *t, level)
	case bool:
		b.WriteString(strconv.FormatBool(t))
		return nil
	case string:
		writeString(b, t)
		return nil
	case json.Number:
		b.WriteString(t.String())
		return nil
	case float32:
		return p.write(b, float64(t), level)
	case float64:
		b.WriteString(pyFloat(t))
		return nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(pyFloat(rv.Float()))
	case reflect.String:
		writeString(b, rv.String())
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(rv.Bool()))
	case reflect.Slice, reflect.Array:
		if rv.Len() == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i := range rv.Len() {
			if i > 0 {
				b.WriteString(p.item)
			}
			p.newline(b, level+1)
			if err := p.write(b, rv.Index(i).Interface(), level+1); err != nil {
				return err
			}
		}
		p.newline(b, level)
		b.WriteByte(']')
	case reflect.Map:
		pairs := make([]kv, 0, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			pairs = append(pairs, kv{fmt.Sprint(iter.Key().Interface()), iter.Value().Interface()})
		}
		// Go maps have no order; sorting is the one deterministic choice.
		slices.SortFunc(pairs, func(a, b kv) int { return strings.Compare(a.key, b.key) })
		return p.object(b, pairs, level)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		return p.write(b, rv.Elem().Interface(), level)
	default:
		// Structs and the rest: through encoding/json, then in Python's layout.
		doc, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("tojson: %w", err)
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		ordered, err := decodeOrdered(dec)
		if err != nil {
			return fmt.Errorf("tojson: %w", err)
		}
		return p.write(b, ordered, level)
	}
	return nil
}

func (p pyJSON) object(b *strings.Builder, pairs []kv, level int) error {
	if len(pairs) == 0 {
		b.WriteString("{}")
		return nil
	}
	if p.sortKeys {
		slices.SortStableFunc(pairs, func(a, b kv) int { return strings.Compare(a.key, b.key) })
	}
	b.WriteByte('{')
	for i, pair := range pairs {
		if i > 0 {
			b.WriteString(p.item)
		}
		p.newline(b, level+1)
		writeString(b, pair.key)
		b.WriteString(p.key)
		if err := p.write(b, pair.val, level+1); err != nil {
			return err
		}
	}
	p.newline(b, level)
	b.WriteByte('}')
	return nil
}

// writeString quotes s as Python's json does with ensure_ascii=False.
func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// pyFloat formats f as Python's float repr (what json.dumps writes).
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	if x < -4 || x >= 16 {
		return mant + "e" + exp[:1] + padExp(exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// padExp returns the digits of a Go exponent ("+07", "-123") with at least two digits, as
// Python writes them.
func padExp(exp string) string {
	d := strings.TrimLeft(exp[1:], "0")
	for len(d) < 2 {
		d = "0" + d
	}
	return d
}
