package config

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"
)

// kind is the type of value a setting key holds.
type kind int

const (
	kindString kind = iota
	kindBool
	kindInt
	kindFloat
	kindMap // map[string]string, e.g. ep_options; replaced as a whole, never merged
)

// schema maps every known key to its kind; it is derived from the Settings struct tags so a
// new field needs no second list.
var schema = func() map[string]kind {
	m := map[string]kind{}
	for k, v := range flatten(Defaults()) {
		switch v.(type) {
		case string:
			m[k] = kindString
		case bool:
			m[k] = kindBool
		case int:
			m[k] = kindInt
		case float64:
			m[k] = kindFloat
		case map[string]string:
			m[k] = kindMap
		default:
			panic(fmt.Sprintf("config: key %s has unsupported type %T", k, v))
		}
	}
	return m
}()

// EnvName returns the environment variable that overrides key: "cpu.model" → "EDGECHAT_CPU_MODEL".
func EnvName(key string) string {
	return "EDGECHAT_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// Keys returns every known setting key, sorted.
func Keys() []string {
	keys := make([]string, 0, len(schema))
	for k := range schema {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// flatten turns st into key → value with dotted keys; maps (ep_options) stay whole values.
func flatten(st Settings) map[string]any {
	var nested map[string]any
	if err := mapstructure.Decode(st, &nested); err != nil {
		panic(fmt.Sprintf("config: flatten settings: %v", err)) // only a programming error gets here
	}
	out := map[string]any{}
	flattenInto(out, "", nested, func(string) bool { return false })
	return out
}

// flattenFile flattens a nested map read from YAML; a known map key (ep_options) is kept whole.
func flattenFile(nested map[string]any) map[string]any {
	out := map[string]any{}
	flattenInto(out, "", nested, func(k string) bool { return schema[k] == kindMap })
	return out
}

func flattenInto(out map[string]any, prefix string, m map[string]any, leaf func(string) bool) {
	for k, v := range m {
		key := strings.ToLower(k)
		if prefix != "" {
			key = prefix + "." + key
		}
		if sub, ok := v.(map[string]any); ok && !leaf(key) {
			flattenInto(out, key, sub, leaf)
			continue
		}
		out[key] = v
	}
}

// unflatten turns dotted keys back into nested maps for writing.
func unflatten(flat map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range flat {
		parts := strings.Split(k, ".")
		m := out
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		m[parts[len(parts)-1]] = v
	}
	return out
}

// coerce converts a value from the YAML file or the environment to the Go type of its kind,
// with an error that says what was expected.
func coerce(k kind, v any) (any, error) {
	switch k {
	case kindString:
		switch v := v.(type) {
		case string:
			return v, nil
		case nil:
			return "", nil
		case bool, int, int64, uint64, float64:
			return fmt.Sprint(v), nil
		}
		return nil, fmt.Errorf("should be text")
	case kindBool:
		switch v := v.(type) {
		case bool:
			return v, nil
		case string:
			if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
				return b, nil
			}
		}
		return nil, fmt.Errorf("should be true or false")
	case kindInt:
		switch v := v.(type) {
		case int:
			return v, nil
		case int64:
			return int(v), nil
		case uint64:
			if v <= math.MaxInt32 {
				return int(v), nil
			}
		case float64:
			if v == math.Trunc(v) && math.Abs(v) <= math.MaxInt32 {
				return int(v), nil
			}
		case string:
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n, nil
			}
		}
		return nil, fmt.Errorf("should be a whole number")
	case kindFloat:
		var f float64
		switch v := v.(type) {
		case int:
			return float64(v), nil
		case int64:
			return float64(v), nil
		case uint64:
			return float64(v), nil
		case float64:
			f = v
		case string:
			p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return nil, fmt.Errorf("should be a number")
			}
			f = p
		default:
			return nil, fmt.Errorf("should be a number")
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("should be a finite number")
		}
		return f, nil
	case kindMap:
		return coerceMap(v)
	}
	return nil, fmt.Errorf("unknown kind %d", k)
}

func coerceMap(v any) (any, error) {
	out := map[string]string{}
	switch m := v.(type) {
	case nil:
		return out, nil
	case map[string]string:
		for k, s := range m {
			out[strings.ToLower(k)] = s
		}
		return out, nil
	case map[string]any:
		for k, e := range m {
			s, err := coerce(kindString, e)
			if err != nil {
				return nil, fmt.Errorf("option %s should be text, not a list or section", k)
			}
			out[strings.ToLower(k)] = s.(string)
		}
		return out, nil
	}
	return nil, fmt.Errorf("should be a list of name: value options")
}

// envOverrides reads EDGECHAT_* variables for every scalar key. Values that do not parse are
// ignored with a warning; an empty variable counts as unset.
func envOverrides() (map[string]any, []string) {
	env := map[string]any{}
	var warnings []string
	for _, key := range Keys() {
		k := schema[key]
		if k == kindMap {
			continue
		}
		name := EnvName(key)
		raw, ok := os.LookupEnv(name)
		if !ok || raw == "" {
			continue
		}
		v, err := coerce(k, raw)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s=%q is ignored: it %v", name, raw, err))
			continue
		}
		env[key] = v
	}
	return env, warnings
}

// sanitize keeps the known keys of a flattened file whose values have the right type; bad ones
// are dropped (their default applies) with a warning naming the file and key.
func sanitize(path string, flat map[string]any) (map[string]any, []string) {
	good := map[string]any{}
	var warnings []string
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sections := map[string]bool{} // known values given as sections, reported once each
	for _, key := range keys {
		k, known := schema[key]
		if parent, ok := valueAbove(key); !known && ok {
			if !sections[parent] {
				sections[parent] = true
				warnings = append(warnings, fmt.Sprintf("%s: %s should be %s, not a section of settings; using the default instead", path, parent, kindWant[schema[parent]]))
			}
			continue
		}
		if !known && clashes(key) {
			warnings = append(warnings, fmt.Sprintf("%s: %s should be a section of settings (like %s.model), not a single value; using the defaults instead", path, key, key))
			continue
		}
		if !known {
			warnings = append(warnings, fmt.Sprintf("%s: unknown setting %q is ignored (kept in the file)", path, key))
			continue
		}
		v, err := coerce(k, flat[key])
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %s %v; using the default instead (the file is unchanged)", path, key, err))
			continue
		}
		good[key] = v
	}
	return good, warnings
}

// clashes reports an unknown key that is a known key's parent or child ("cpu" when the file
// says "cpu: x", "temperature.max"), which cannot be kept beside the known keys.
// valueAbove returns the known single-value key that key lies under ("repetition_penalty"
// for "repetition_penalty.a"), if any: the file gave a section where a value belongs.
func valueAbove(key string) (string, bool) {
	for i := strings.LastIndexByte(key, '.'); i > 0; i = strings.LastIndexByte(key[:i], '.') {
		if k, ok := schema[key[:i]]; ok && k != kindMap {
			return key[:i], true
		}
	}
	return "", false
}

// kindWant says what a value of each kind should be, for warnings.
var kindWant = map[kind]string{kindString: "text", kindBool: "true or false", kindInt: "a whole number", kindFloat: "a number", kindMap: "a list of name: value options"}

func clashes(key string) bool {
	for k := range schema {
		if strings.HasPrefix(k, key+".") || strings.HasPrefix(key, k+".") {
			return true
		}
	}
	return false
}
