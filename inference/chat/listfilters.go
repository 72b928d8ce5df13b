package chat

import (
	"sort"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// Two more of gonja's departures from Jinja2 that tool templates meet, mended here:
//
//   - the items filter gives nothing for a dict literal or a JSON object (Hermes' tool_use
//     template lists a function's parameters with `properties|items`);
//   - a list made by the list filter indexes like a Go slice, so l[-1] of a one-item list is
//     None (Mistral's template finds the last user message with
//     `selectattr(...) | list` and `[-1]`).

// filterItems is Jinja2's items: a mapping's (key, value) pairs in its order (a JSON object's
// written order; a Go map's sorted keys).
func filterItems(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	if err := params.Take(); err != nil {
		return exec.AsValue(exec.ErrInvalidCall(err))
	}
	var d *exec.Dict
	switch v := in.Interface().(type) {
	case exec.Dict:
		d = &v
	case *exec.Dict:
		d = v
	}
	if d != nil {
		out := make(pyList, len(d.Pairs))
		for i, p := range d.Pairs {
			out[i] = pyList{p.Key.Interface(), p.Value.Interface()}
		}
		return exec.AsValue(out)
	}
	if in.IsNil() {
		return exec.AsValue(pyList{})
	}
	if !in.IsDict() {
		return exec.AsValue(exec.ErrInvalidCall(errNotMapping))
	}
	pairs := in.Items()
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].Key.String() < pairs[j].Key.String() })
	out := make(pyList, len(pairs))
	for i, p := range pairs {
		out[i] = pyList{p.Key.Interface(), p.Value.Interface()}
	}
	return exec.AsValue(out)
}

type notMapping struct{}

func (notMapping) Error() string { return "items requires a mapping" }

var errNotMapping error = notMapping{}

// filterList is gonja's list, returning a list that indexes like Python.
func filterList(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	fn, _ := builtins.Filters.Get("list")
	out := fn(e, in, params)
	if out.IsError() || !out.IsList() {
		return out
	}
	l := make(pyList, out.Len())
	for i := range l {
		l[i] = out.Index(i).Interface()
	}
	return exec.AsValue(l)
}
