package chat

import (
	"errors"
	"strings"
	"unicode"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// gonja v2.9.1 departs from Python where chat templates notice:
//
//   - list[-n] on a list of exactly n items is None ("a".split("</think>")[-1] on a reply
//     without a </think>): pyList below indexes the way Python does, and it is what split,
//     rsplit and the messages variable give the template;
//   - str.split(sep, maxsplit) keeps one piece too few and split() knows only Go's spaces;
//   - str.strip/lstrip/rstrip (and the trim filter) with no argument strip spaces only
//     (Python: all whitespace), and an empty argument strips whitespace (Python: nothing);
//   - dict.items/keys/values sort the keys; for the JSON objects Render passes in (tools),
//     which keep their written order like Python dicts, they now follow that order.
//
// The methods here replace gonja's with Python's behaviour; the rest delegate. Still
// different (testdata/expressions.json lists them): l[-n] on a template-built list of n
// items is None; dict literals in the template iterate in sorted key order; {{ none }}
// prints "" (Jinja2: "None"); int ** int is a float.

// pyList is a template list that indexes like Python (negative indexes count from the end).
type pyList []any

// GetItem implements exec.ItemGetter.
func (l pyList) GetItem(key any) (*exec.Value, bool) {
	i, ok := key.(int)
	if !ok {
		return exec.AsValue(nil), false
	}
	if i < 0 {
		i += len(l)
	}
	if i < 0 || i >= len(l) {
		return exec.AsValue(nil), false
	}
	return exec.ToValue(l[i]), true
}

// strMethodNames lists gonja's string methods, which the replacement set delegates to.
var strMethodNames = []string{
	"capitalize", "capwords", "casefold", "center", "count", "encode", "endswith", "expandtabs",
	"find", "format", "format_map", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit",
	"islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust",
	"lower", "partition", "removeprefix", "removesuffix", "replace", "rfind", "rjust",
	"rpartition", "splitlines", "startswith", "swapcase", "title", "upper", "zfill",
}

func stringMethods() *exec.MethodSet[string] {
	m := map[string]exec.Method[string]{
		"split":  splitMethod(false),
		"rsplit": splitMethod(true),
		"strip":  stripMethod(true, true),
		"lstrip": stripMethod(true, false),
		"rstrip": stripMethod(false, true),
	}
	for _, name := range strMethodNames {
		if fn, ok := builtins.Methods.Str.Get(name); ok {
			m[name] = fn
		}
	}
	return exec.NewMethodSet(m)
}

var dictMethodNames = []string{"get", "pop", "setdefault", "update", "copy", "clear"}

func dictMethods() *exec.MethodSet[map[string]any] {
	m := map[string]exec.Method[map[string]any]{
		"items":  orderedDictMethod("items"),
		"keys":   orderedDictMethod("keys"),
		"values": orderedDictMethod("values"),
	}
	for _, name := range dictMethodNames {
		if fn, ok := builtins.Methods.Dict.Get(name); ok {
			m[name] = noSelfHolding(fn)
		}
	}
	return exec.NewMethodSet(m)
}

// noSelfHolding refuses a dict method call that leaves the dict holding itself
// ({% do d.update({'d': d}) %}): printing or comparing it would recurse without end.
func noSelfHolding(fn exec.Method[map[string]any]) exec.Method[map[string]any] {
	return func(self map[string]any, selfValue *exec.Value, args *exec.VarArgs) (any, error) {
		out, err := fn(self, selfValue, args)
		if err != nil {
			return out, err
		}
		if err := shapeError(self, 1<<20); err != nil {
			clear(self)
			return nil, err
		}
		return out, nil
	}
}

// orderedDictMethod is items, keys or values in an exec.Dict's own order, and gonja's
// (sorted) for Go maps.
func orderedDictMethod(name string) exec.Method[map[string]any] {
	fallback, _ := builtins.Methods.Dict.Get(name)
	return func(self map[string]any, selfValue *exec.Value, args *exec.VarArgs) (any, error) {
		d, ok := selfValue.Interface().(exec.Dict)
		if !ok {
			return fallback(self, selfValue, args)
		}
		if err := args.Take(); err != nil {
			return nil, exec.ErrInvalidCall(err)
		}
		out := make(pyList, len(d.Pairs))
		for i, p := range d.Pairs {
			switch name {
			case "items":
				out[i] = pyList{p.Key.Interface(), p.Value.Interface()}
			case "keys":
				out[i] = p.Key.Interface()
			default:
				out[i] = p.Value.Interface()
			}
		}
		return out, nil
	}
}

// optionalString reads an argument that is a string or None (absent means None).
func optionalString(v *exec.Value, out **string) error {
	if v == nil || v.IsNil() {
		return nil
	}
	if !v.IsString() {
		return errors.New("must be None or a string")
	}
	s := v.String()
	*out = &s
	return nil
}

func stripMethod(left, right bool) exec.Method[string] {
	return func(self string, _ *exec.Value, args *exec.VarArgs) (any, error) {
		var chars *string
		if err := args.Take(
			exec.PositionalArgument("chars", exec.AsValue(nil), func(v *exec.Value) error { return optionalString(v, &chars) }),
		); err != nil {
			return nil, exec.ErrInvalidCall(err)
		}
		cut := isPySpace
		if chars != nil {
			set := *chars
			cut = func(r rune) bool { return strings.ContainsRune(set, r) }
		}
		if left {
			self = strings.TrimLeftFunc(self, cut)
		}
		if right {
			self = strings.TrimRightFunc(self, cut)
		}
		return self, nil
	}
}

func splitMethod(fromRight bool) exec.Method[string] {
	return func(self string, _ *exec.Value, args *exec.VarArgs) (any, error) {
		var sep *string
		maxsplit := -1
		if err := args.Take(
			exec.PositionalArgument("sep", exec.AsValue(nil), func(v *exec.Value) error { return optionalString(v, &sep) }),
			exec.PositionalArgument("maxsplit", exec.AsValue(-1), exec.IntArgument(&maxsplit)),
		); err != nil {
			return nil, exec.ErrInvalidCall(err)
		}
		var parts []string
		switch {
		case sep == nil:
			parts = splitSpace(self, maxsplit, fromRight)
		case *sep == "":
			return nil, errors.New("ValueError: empty separator")
		case maxsplit < 0:
			parts = strings.Split(self, *sep)
		case fromRight:
			parts = rsplitN(self, *sep, maxsplit)
		default:
			parts = strings.SplitN(self, *sep, maxsplit+1)
		}
		list := make(pyList, len(parts))
		for i, p := range parts {
			list[i] = p
		}
		return list, nil
	}
}

// rsplitN splits s at the last n occurrences of sep, as Python's rsplit(sep, n).
func rsplitN(s, sep string, n int) []string {
	var rev []string
	for ; n > 0; n-- {
		i := strings.LastIndex(s, sep)
		if i < 0 {
			break
		}
		rev = append(rev, s[i+len(sep):])
		s = s[:i]
	}
	parts := append(make([]string, 0, len(rev)+1), s)
	for i := len(rev) - 1; i >= 0; i-- {
		parts = append(parts, rev[i])
	}
	return parts
}

// splitSpace is Python's str.split()/rsplit() with no separator: runs of whitespace split,
// no empty pieces, at most maxsplit splits (the rest stays whole, leading space trimmed).
func splitSpace(s string, maxsplit int, fromRight bool) []string {
	if fromRight {
		words := splitSpace(reverse(s), maxsplit, false)
		for i, j := 0, len(words)-1; i < j; i, j = i+1, j-1 {
			words[i], words[j] = words[j], words[i]
		}
		for i := range words {
			words[i] = reverse(words[i])
		}
		return words
	}
	var words []string
	for {
		s = strings.TrimLeftFunc(s, isPySpace)
		if s == "" {
			return words
		}
		if maxsplit >= 0 && len(words) == maxsplit {
			return append(words, s)
		}
		end := strings.IndexFunc(s, isPySpace)
		if end < 0 {
			return append(words, s)
		}
		words = append(words, s[:end])
		s = s[end:]
	}
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// isPySpace is Python's str.isspace for one character.
// IsSpace reports whether Python counts r as whitespace (str.isspace), as strip() and Jinja's
// trim do.
func IsSpace(r rune) bool { return isPySpace(r) }

func isPySpace(r rune) bool {
	switch r {
	case 0x1c, 0x1d, 0x1e, 0x1f:
		return true
	}
	return unicode.IsSpace(r)
}
