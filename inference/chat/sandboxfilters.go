package chat

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// guardFilters wraps every filter of fs: a filter that can grow a string much beyond its
// input (center, indent, wordwrap, replace, join, format, batch, slice, tojson's indent) is
// charged a bound of its result before it runs; every filter's result is charged after.
func guardFilters(fs *exec.FilterSet) {
	for _, name := range filterNames(fs) {
		fn, _ := fs.Get(name)
		if err := fs.Replace(name, guardFilter(name, fn)); err != nil {
			panic("chat: " + err.Error())
		}
	}
}

// filterNames lists fs's filters (gonja has no method for it).
func filterNames(fs *exec.FilterSet) []string {
	var names []string
	for _, k := range reflect.ValueOf(fs).Elem().FieldByName("filters").MapKeys() {
		names = append(names, k.String())
	}
	return names
}

func guardFilter(name string, fn exec.FilterFunction) exec.FilterFunction {
	return func(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
		b, err := budgetOf(e.Environment.Context)
		if err != nil {
			return exec.AsValue(err)
		}
		for _, v := range append([]*exec.Value{in}, params.Args...) {
			if err := b.checkShape(v); err != nil {
				return exec.AsValue(err)
			}
		}
		for _, v := range params.KwArgs {
			if err := b.checkShape(v); err != nil {
				return exec.AsValue(err)
			}
		}
		if err := b.alloc(growthBound(name, in, params)); err != nil {
			return exec.AsValue(err)
		}
		out := fn(e, in, params)
		if err := b.alloc(sizeOf(out)); err != nil {
			return exec.AsValue(err)
		}
		return out
	}
}

// growthBound is at least the size of what filter or string method name makes of in with
// params, for those whose result can outgrow their inputs many times; 0 for the others.
func growthBound(name string, in *exec.Value, params *exec.VarArgs) int {
	s := ""
	if in.IsString() {
		s = in.String()
	}
	arg := func(i int, key string) *exec.Value {
		if v, ok := params.KwArgs[key]; ok {
			return v
		}
		if i < len(params.Args) {
			return params.Args[i]
		}
		return nil
	}
	width := func(v *exec.Value) int {
		switch {
		case v == nil:
			return 0
		case v.IsInteger():
			return max(v.Integer(), 0)
		case v.IsString():
			return len(v.String())
		}
		return 0
	}
	switch name {
	case "center", "ljust", "rjust", "zfill":
		return len(s) + utf8.UTFMax*width(arg(0, "width"))
	case "indent":
		w := 4
		if v := arg(0, "width"); v != nil {
			w = width(v)
		}
		return satAdd(len(s), satMul(strings.Count(s, "\n")+1, w))
	case "expandtabs":
		t := 8
		if v := arg(0, "tabsize"); v != nil {
			t = width(v)
		}
		return satAdd(len(s), satMul(strings.Count(s, "\t")+1, t))
	case "wordwrap":
		wrap := 1
		if v := arg(3, "wrapstring"); v != nil {
			wrap = max(len(v.String()), 1)
		}
		return satMul(len(s)+1, wrap+1)
	case "replace":
		old, repl := arg(0, "old"), arg(1, "new")
		if old == nil || repl == nil {
			return 0
		}
		n := strings.Count(s, old.String())
		return satAdd(len(s), satMul(n+1, len(repl.String())))
	case "join":
		if in.IsString() { // str.join(iterable): in is the separator
			items := arg(0, "iterable")
			if items == nil {
				return 0
			}
			return joinBound(items, len(s))
		}
		sep := arg(0, "d")
		n := 0
		if sep != nil {
			n = len(sep.String())
		}
		return joinBound(in, n)
	case "format", "format_map":
		// An argument may be a field width ('%*d', '{:>{w}}'): count numbers by their value.
		n := len(s)
		for _, a := range append(params.Args, slices.Collect(maps.Values(params.KwArgs))...) {
			n = satAdd(n, len(a.String()))
			if a.IsInteger() {
				n = satAdd(n, max(a.Integer(), -a.Integer()))
			}
		}
		return satAdd(n, numbersIn(s))
	case "batch", "slice":
		return satMul(16, satAdd(in.Len(), width(arg(0, "linecount"))))
	case "tojson":
		if w := width(arg(0, "indent")); w > 64 {
			return -1 // refused: no real template indents JSON by more than a few spaces
		}
	}
	return 0
}

// joinBound is the length of items joined with a separator of sep bytes.
func joinBound(items *exec.Value, sep int) int {
	if items.IsString() {
		return satMul(len(items.String()), sep+utf8.UTFMax)
	}
	if !items.IsList() {
		return 0
	}
	n := satMul(items.Len(), sep)
	for i := range items.Len() {
		n = satAdd(n, len(items.Index(i).String()))
	}
	return n
}

// numbersIn is the sum of the numbers written in a format string (its field widths).
func numbersIn(s string) int {
	sum := 0
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(s[i:j])
		if err != nil {
			return -1
		}
		sum = satAdd(sum, n)
		i = j
	}
	return sum
}

// satAdd and satMul saturate at -1 (a bound too large to build) on overflow.
func satAdd(a, b int) int {
	if a < 0 || b < 0 || a > int(^uint(0)>>1)-b {
		return -1
	}
	return a + b
}

func satMul(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	if a != 0 && b > int(^uint(0)>>1)/a {
		return -1
	}
	return a * b
}
