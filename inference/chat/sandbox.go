package chat

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// gonja's evaluator has no hooks, so sandbox rewrites a parsed template's tree once, at New,
// so that everything that costs goes through the budget (limits.go):
//
//   - a + b, a * b and a ~ b become calls of binopName, which checks the size of the result
//     before building it ('x' * 1000000000 is refused, not allocated);
//   - what {{ … }} and the template's text print goes through outName, which charges it;
//   - the iterable of each {% for %} goes through iterName, which charges its items as steps;
//   - a method call that can grow a string (center, ljust, replace, join, format …) becomes a
//     call of methodName, which checks its size first; every other method's result is charged
//     by chargeName;
//   - each tag is wrapped to charge a step, and a macro, once defined, to count its nesting.
//
// Filters are wrapped in the environment (guardFilter) and range is a bounded one. Go hides
// some fields of the tag nodes ({% set %}'s expression), so the walk writes them through
// reflect and unsafe; TestSandboxReachesEveryTag checks it reaches each kind of tag.

const (
	binopName  = reservedPrefix + "binop"
	outName    = reservedPrefix + "out"
	iterName   = reservedPrefix + "iter"
	methodName = reservedPrefix + "method"
	chargeName = reservedPrefix + "charge"
	shapeName  = reservedPrefix + "shape"
)

// growingMethods are the string methods whose result can be much longer than their inputs.
var growingMethods = map[string]bool{
	"center": true, "ljust": true, "rjust": true, "zfill": true, "expandtabs": true,
	"replace": true, "join": true, "format": true, "format_map": true,
}

// sandbox rewrites root in place; it refuses what cannot be bounded (recursive loops).
func sandbox(root *nodes.Template) error {
	w := &rewriter{seen: map[uintptr]bool{}, outputs: map[*nodes.Output]bool{}, literals: map[nodes.Node]bool{}}
	w.walk(reflect.ValueOf(root).Elem())
	return w.err
}

type rewriter struct {
	seen map[uintptr]bool
	// outputs and literals are the nodes already wrapped (a node can be reached twice).
	outputs  map[*nodes.Output]bool
	literals map[nodes.Node]bool
	err      error
}

var nodeType = reflect.TypeFor[nodes.Node]()

// writable is v (addressable) made settable even when reached through unexported fields.
func writable(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func (w *rewriter) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		w.walk(v.Elem())
	case reflect.Interface:
		if v.IsNil() || !v.CanAddr() {
			return
		}
		v = writable(v)
		inner := v.Elem()
		if inner.Kind() == reflect.Pointer && !inner.IsNil() {
			w.walk(inner)
		}
		if v.Type().Implements(nodeType) || v.Type() == nodeType {
			if n, ok := inner.Interface().(nodes.Node); ok {
				if r := w.replace(n); r != nil && reflect.TypeOf(r).AssignableTo(v.Type()) {
					v.Set(reflect.ValueOf(r))
				}
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			w.walk(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			w.walk(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() || v.Type().Elem().Kind() != reflect.Interface && v.Type().Elem().Kind() != reflect.Pointer {
			return
		}
		m := writable(v)
		for _, k := range m.MapKeys() {
			tmp := reflect.New(m.Type().Elem()).Elem()
			tmp.Set(m.MapIndex(k))
			w.walk(tmp)
			m.SetMapIndex(k, tmp)
		}
	}
}

// replace returns what stands for n in the sandboxed tree, nil to keep n (its children already
// rewritten).
func (w *rewriter) replace(n nodes.Node) nodes.Node {
	switch n := n.(type) {
	case *nodes.BinaryExpression:
		switch n.Operator.Token.Type {
		case tokens.Addition, tokens.Multiply, tokens.Tilde:
			op := &nodes.String{Location: n.Operator.Token, Val: n.Operator.Token.Val}
			return call(n.Operator.Token, binopName, op, n.Left, n.Right)
		}
	case *nodes.Output:
		if w.outputs[n] {
			return nil
		}
		w.outputs[n] = true
		n.Expression = call(n.Start, outName, n.Expression)
		if n.Alternative != nil {
			n.Alternative = call(n.Start, outName, n.Alternative)
		}
	case *nodes.Data:
		return &nodes.Output{Start: n.Data, End: n.Data, Expression: call(n.Data, outName, &nodes.String{Location: n.Data, Val: dataText(n)})}
	case *nodes.Call:
		attr, ok := n.Func.(*nodes.GetAttribute)
		if !ok || n.Parent == nil {
			return nil
		}
		if growingMethods[attr.Attribute] {
			args := append([]nodes.Expression{&nodes.String{Location: n.Location, Val: attr.Attribute}, attr.Node}, n.Args...)
			c := call(n.Location, methodName, args...)
			c.Kwargs = n.Kwargs
			return c
		}
		return call(n.Location, chargeName, n)
	case *nodes.List, *nodes.Tuple, *nodes.Dict:
		if w.literals[n] {
			return nil
		}
		w.literals[n] = true
		return call(n.Position(), shapeName, n)
	case *nodes.ControlStructureBlock:
		if _, done := n.ControlStructure.(*guardedTag); done {
			return nil
		}
		inner, ok := n.ControlStructure.(exec.ControlStructure)
		if !ok {
			return nil
		}
		g := &guardedTag{inner: inner}
		switch cs := inner.(type) {
		case *controlStructures.ForControlStructure:
			if cs.Recursive {
				w.fail(errors.New("recursive loops ({% for … recursive %}) are not supported"))
			}
			cs.ObjectEvaluator = call(cs.Position(), iterName, cs.ObjectEvaluator)
		case *controlStructures.MacroControlStructure:
			g.macro = cs.Name
		case *controlStructures.RawControlStructure:
			g.writes = rawLength(cs)
		case *controlStructures.SetControlStructure:
			g.setOwner = setOwner(cs)
		}
		n.ControlStructure = g
	}
	return nil
}

func (w *rewriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func call(at *tokens.Token, name string, args ...nodes.Expression) *nodes.Call {
	return &nodes.Call{Location: at, Func: &nodes.Name{Name: &tokens.Token{Type: tokens.Name, Val: name, Line: at.Line, Col: at.Col}}, Args: args, Kwargs: map[string]nodes.Expression{}}
}

// dataText is what gonja's renderer prints for a text node.
func dataText(n *nodes.Data) string {
	output := n.Data.Val
	if n.RemoveFirstLineReturn {
		output = strings.TrimPrefix(output, "\r\n")
		output = strings.TrimPrefix(output, "\n")
	}
	if n.Trim.Left {
		output = strings.TrimLeft(output, " \r\n\t")
	}
	if n.Trim.Right {
		output = strings.TrimRight(output, " \r\n\t")
	}
	if n.RemoveTrailingWhiteSpaceFromLastLine {
		lines := strings.Split(output, "\n")
		lines = append(lines[0:len(lines)-1], strings.TrimRight(lines[len(lines)-1], " \n\t\r"))
		output = strings.Join(lines, "\n")
	}
	return output
}

// rawLength is the length of the text a {% raw %} block prints (a field gonja hides).
func rawLength(cs *controlStructures.RawControlStructure) int {
	v := reflect.ValueOf(cs).Elem().FieldByName("data")
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return 0
	}
	v = v.Elem().FieldByName("Data")
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return 0
	}
	return len(v.Elem().FieldByName("Val").String())
}

// guardedTag charges a step each time its tag runs; a macro's definition is wrapped so that each
// call counts its nesting; a {% raw %} block charges the text it prints.
type guardedTag struct {
	inner  exec.ControlStructure
	macro  string
	writes int
	// setOwner is ns in {% set ns.attr = … %}: checked after the tag, as it may now hold itself.
	setOwner nodes.Expression
}

// setOwner is the object whose attribute a {% set %} tag assigns, nil for a plain name (a
// field gonja hides).
func setOwner(cs *controlStructures.SetControlStructure) nodes.Expression {
	v := reflect.ValueOf(cs).Elem().FieldByName("target")
	if !v.IsValid() || v.IsNil() {
		return nil
	}
	if attr, ok := writable(v).Interface().(*nodes.GetAttribute); ok {
		return attr.Node
	}
	return nil
}

func (g *guardedTag) Position() *tokens.Token { return g.inner.Position() }
func (g *guardedTag) String() string          { return g.inner.String() }

func (g *guardedTag) Execute(r *exec.Renderer, tag *nodes.ControlStructureBlock) error {
	b, err := budgetOf(r.Environment.Context)
	if err != nil {
		return err
	}
	if err := b.step(1); err != nil {
		return err
	}
	if err := b.alloc(g.writes); err != nil {
		return err
	}
	if err := g.inner.Execute(r, tag); err != nil {
		return err
	}
	if g.setOwner != nil {
		if err := b.checkShapeNow(r.Eval(g.setOwner)); err != nil {
			return err
		}
	}
	if g.macro == "" {
		return nil
	}
	v, ok := r.Environment.Context.Get(g.macro)
	if m, isMacro := v.(exec.Macro); ok && isMacro {
		r.Environment.Context.Set(g.macro, exec.Macro(func(params *exec.VarArgs) *exec.Value {
			if err := b.enter(); err != nil {
				return exec.AsValue(err)
			}
			defer b.leave()
			return m(params)
		}))
	}
	return nil
}

// sandboxGlobals are the functions the rewritten tree calls, and a bounded range.
func sandboxGlobals() map[string]any {
	return map[string]any{
		binopName:  binop,
		outName:    charged(func(v *exec.Value) int { return len(v.String()) }),
		chargeName: charged(sizeOf),
		shapeName:  charged(func(*exec.Value) int { return 0 }),
		iterName:   charged(nil),
		methodName: guardedMethod,
		"range":    boundedRange,
		"lipsum": func(e *exec.Evaluator, _ *exec.VarArgs) *exec.Value {
			b, err := budgetOf(e.Environment.Context)
			if err == nil {
				err = b.fail(fmt.Errorf("%w: it calls lipsum(), which chat templates may not", ErrLimit))
			}
			return exec.AsValue(err)
		},
	}
}

// charged returns its one argument after charging cost(it) bytes; with cost nil, its items as
// steps (a {% for %}'s iterable).
func charged(cost func(*exec.Value) int) func(*exec.Evaluator, *exec.VarArgs) *exec.Value {
	return func(e *exec.Evaluator, params *exec.VarArgs) *exec.Value {
		if len(params.Args) != 1 {
			return exec.AsValue(errors.New("sandbox: one argument expected"))
		}
		v := params.Args[0]
		b, err := budgetOf(e.Environment.Context)
		if err != nil {
			return exec.AsValue(err)
		}
		if err := b.checkShape(v); err != nil {
			return exec.AsValue(err)
		}
		if cost == nil {
			n := 0
			switch {
			case v.IsString():
				n = utf8.RuneCountInString(v.String())
			case v.IsList() || v.IsDict():
				n = v.Len()
			}
			err = b.step(n)
		} else {
			err = b.alloc(cost(v))
		}
		if err != nil {
			return exec.AsValue(err)
		}
		return v
	}
}

// binop is gonja's +, * and ~ with the result's size charged before it is built.
func binop(e *exec.Evaluator, params *exec.VarArgs) *exec.Value {
	if len(params.Args) != 3 {
		return exec.AsValue(errors.New("sandbox: binop needs three arguments"))
	}
	op, left, right := params.Args[0].String(), params.Args[1], params.Args[2]
	b, err := budgetOf(e.Environment.Context)
	if err != nil {
		return exec.AsValue(err)
	}
	for _, v := range []*exec.Value{left, right} {
		if err := b.checkShape(v); err != nil {
			return exec.AsValue(err)
		}
	}
	switch op {
	case "+":
		if left.IsList() {
			if !right.IsList() {
				return exec.AsValue(fmt.Errorf("unable to concatenate list to %s", right.String()))
			}
			if err := b.alloc(16 * (left.Len() + right.Len())); err != nil {
				return exec.AsValue(err)
			}
			out := make([]any, 0, left.Len()+right.Len())
			for i := range left.Len() {
				out = append(out, left.Index(i).Interface())
			}
			for i := range right.Len() {
				out = append(out, right.Index(i).Interface())
			}
			return exec.AsValue(out)
		}
		if left.IsFloat() || right.IsFloat() {
			return exec.AsValue(left.Float() + right.Float())
		}
		if left.IsString() || right.IsString() {
			return concat(b, left.String(), right.String())
		}
		return exec.AsValue(left.Integer() + right.Integer())
	case "*":
		if left.IsFloat() || right.IsFloat() {
			return exec.AsValue(left.Float() * right.Float())
		}
		if left.IsString() {
			s, n := left.String(), right.Integer()
			if n <= 0 || s == "" {
				return exec.AsValue("")
			}
			if n > math.MaxInt/len(s) {
				return exec.AsValue(b.fail(fmt.Errorf("%w: it repeats a string %d times", ErrLimit, n)))
			}
			if err := b.alloc(len(s) * n); err != nil {
				return exec.AsValue(err)
			}
			return exec.AsValue(strings.Repeat(s, n))
		}
		return exec.AsValue(left.Integer() * right.Integer())
	default: // "~"
		return concat(b, left.String(), right.String())
	}
}

func concat(b *budget, l, r string) *exec.Value {
	if err := b.alloc(len(l) + len(r)); err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(l + r)
}

// guardedMethod calls a growing string method (growingMethods) after charging a bound of its
// result: guardedMethod(name, receiver, args…).
func guardedMethod(e *exec.Evaluator, params *exec.VarArgs) *exec.Value {
	if len(params.Args) < 2 {
		return exec.AsValue(errors.New("sandbox: method needs a name and a receiver"))
	}
	name, recv := params.Args[0].String(), params.Args[1]
	args := &exec.VarArgs{Args: params.Args[2:], KwArgs: params.KwArgs}
	b, err := budgetOf(e.Environment.Context)
	if err != nil {
		return exec.AsValue(err)
	}
	for _, v := range params.Args {
		if err := b.checkShape(v); err != nil {
			return exec.AsValue(err)
		}
	}
	for _, v := range params.KwArgs {
		if err := b.checkShape(v); err != nil {
			return exec.AsValue(err)
		}
	}
	fn, ok := e.Environment.Methods.Str.Get(name)
	if !recv.IsString() || !ok {
		return exec.AsValue(fmt.Errorf("unknown method '%s' for '%s'", name, recv.String()))
	}
	if err := b.alloc(growthBound(name, recv, args)); err != nil {
		return exec.AsValue(err)
	}
	out, err := fn(recv.String(), recv, args)
	if err != nil {
		if callErr, ok := err.(exec.ErrInvalidCall); ok {
			return exec.AsValue(fmt.Errorf("invalid call to method '%s' of %s: %s", name, recv.String(), callErr.Error()))
		}
		return exec.AsValue(err)
	}
	return exec.AsValue(out)
}

// boundedRange is Jinja's range as a list, its length charged as steps before it is made.
func boundedRange(e *exec.Evaluator, params *exec.VarArgs) *exec.Value {
	b, err := budgetOf(e.Environment.Context)
	if err != nil {
		return exec.AsValue(err)
	}
	start, stop, step := 0, 0, 1
	for _, a := range params.Args {
		if !a.IsInteger() {
			return exec.AsValue(errors.New("range: expected signature is [start, ]stop[, step] where all arguments are integers"))
		}
	}
	switch len(params.Args) {
	case 1:
		stop = params.Args[0].Integer()
	case 2:
		start, stop = params.Args[0].Integer(), params.Args[1].Integer()
	case 3:
		start, stop, step = params.Args[0].Integer(), params.Args[1].Integer(), params.Args[2].Integer()
	default:
		return exec.AsValue(errors.New("range: expected signature is [start, ]stop[, step] where all arguments are integers"))
	}
	if step == 0 {
		return exec.AsValue(errors.New("range: step cannot be 0"))
	}
	n := 0
	switch {
	case step > 0 && stop > start:
		n = int((uint64(stop-start) + uint64(step) - 1) / uint64(step))
	case step < 0 && start > stop:
		n = int((uint64(start-stop) + uint64(-step) - 1) / uint64(-step))
	}
	if n < 0 || n > b.lim.Steps {
		return exec.AsValue(b.fail(fmt.Errorf("%w: range() of %d numbers is more than its %d loop iterations", ErrLimit, n, b.lim.Steps)))
	}
	if err := b.step(n); err != nil {
		return exec.AsValue(err)
	}
	out := make(pyList, n)
	for i := range out {
		out[i] = start + i*step
	}
	return exec.AsValue(out)
}
