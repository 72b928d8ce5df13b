package chat

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// A chat template comes from a downloaded model folder: it is a program, and a hostile or
// broken one must not crash the app (a Go stack overflow or an out-of-memory cannot be
// recovered), hang it, or fill its memory. Every render runs under a budget, checked inside
// the renderer before the work is done:
//
//   - depth: macro calls nested in each other (a macro that calls itself without end);
//   - steps: loop iterations (each item of every iterable a {% for %} walks, each number
//     range() makes) and executed tags, in total;
//   - bytes: every string and list the template builds — concatenations, repetitions,
//     filters and methods, what it prints — in total, checked before a growing operation
//     allocates;
//   - time, and the request's context.
//
// The limits grow with the conversation (a template prints each message a few times) and
// sit far above what real templates use (see TestRealTemplatesWithinLimits). A template over a
// limit gets ErrLimit; New renders a representative conversation under the limits and
// refuses a template that exceeds them, so it fails at load, not at reply time.

// ErrLimit marks a render stopped by the sandbox's limits (it also wraps ErrTemplate).
var ErrLimit = errors.New("the chat template went over the sandbox's limits")

// Limits bound one render.
type Limits struct {
	// Depth is the deepest nesting of macro calls.
	Depth int
	// Steps is the most loop iterations and executed tags, in total.
	Steps int
	// Bytes is the most bytes of strings and list items the template may build, in total.
	Bytes int
	// Time is the longest a render may take.
	Time time.Duration
}

// baseLimits apply to a conversation of no size; limitsFor adds to them per message and per
// byte of input.
var baseLimits = Limits{Depth: 64, Steps: 50_000, Bytes: 16 << 20, Time: 2 * time.Second}

// Per unit of input: a real template walks each message (and tool) a few times and prints each
// byte of it a few times.
const (
	stepsPerItem = 400
	bytesPerByte = 32
	timePerItem  = time.Millisecond
	// maxSteps caps the steps whatever the input: a template-built list nested once per step
	// is printed by recursion, so steps also bound the Go stack.
	maxSteps = 20_000_000
)

// limitsFor sizes the limits for a render of items messages and tools holding size bytes.
func limitsFor(items, size int) Limits {
	l := baseLimits
	l.Steps = min(l.Steps+stepsPerItem*items, maxSteps)
	l.Bytes += bytesPerByte * size
	l.Time += time.Duration(items) * timePerItem
	return l
}

// budgetName is the context variable a render's budget travels in; templates may not name it
// (New refuses sources that mention reservedPrefix).
const budgetName = reservedPrefix + "budget"

// reservedPrefix begins the names of the sandbox's own globals.
const reservedPrefix = "__edgechat_"

// budget is what one render has left; a template cannot reach its fields (unexported).
type budget struct {
	ctx      context.Context
	deadline time.Time
	lim      Limits
	steps    int
	bytes    int
	depth    int
	checks   int
	err      error
	// shaped are the lists and mappings checkShape passed, by identity: a template checks
	// messages|length on each turn, and walking it each time would cost the square of its size.
	// Each holds its value, so that no new value can take a checked one's address.
	shaped map[shapeKey]any
}

// shapeKey identifies a list (its array and length) or a mapping.
type shapeKey struct {
	ptr uintptr
	n   int
}

func newBudget(ctx context.Context, lim Limits) *budget {
	return &budget{ctx: ctx, deadline: time.Now().Add(lim.Time), lim: lim}
}

// fail records the first limit hit and returns it; later checks fail with it too, so the
// render unwinds quickly.
func (b *budget) fail(err error) error {
	if b.err == nil {
		b.err = err
	}
	return b.err
}

// check looks at the clock and the context every few calls.
func (b *budget) check() error {
	if b.err != nil {
		return b.err
	}
	b.checks++
	if b.checks%64 != 1 {
		return nil
	}
	if err := b.ctx.Err(); err != nil {
		return b.fail(fmt.Errorf("rendering stopped: %w", err))
	}
	if time.Now().After(b.deadline) {
		return b.fail(fmt.Errorf("%w: it took longer than %v", ErrLimit, b.lim.Time))
	}
	return nil
}

// step charges n loop iterations or tags.
func (b *budget) step(n int) error {
	if err := b.check(); err != nil {
		return err
	}
	if n < 0 || n > b.lim.Steps-b.steps {
		return b.fail(fmt.Errorf("%w: it runs more than %d loop iterations and tags", ErrLimit, b.lim.Steps))
	}
	b.steps += n
	return nil
}

// alloc charges n bytes before (or as) they are built.
func (b *budget) alloc(n int) error {
	if err := b.check(); err != nil {
		return err
	}
	if n < 0 || n > b.lim.Bytes-b.bytes {
		return b.fail(fmt.Errorf("%w: it builds more than %d MB of text", ErrLimit, b.lim.Bytes>>20))
	}
	b.bytes += n
	return nil
}

// enter and leave count nested macro calls.
func (b *budget) enter() error {
	if err := b.check(); err != nil {
		return err
	}
	if b.depth >= b.lim.Depth {
		return b.fail(fmt.Errorf("%w: its macros call each other more than %d deep", ErrLimit, b.lim.Depth))
	}
	b.depth++
	return nil
}

func (b *budget) leave() { b.depth-- }

// budgetOf finds the render's budget in the evaluation context. None (a template that shadowed
// it, a render outside Render) is an error: the sandbox fails closed.
func budgetOf(ctx *exec.Context) (*budget, error) {
	if v, ok := ctx.Get(budgetName); ok {
		if b, ok := v.(*budget); ok {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w: the render's budget is missing", ErrLimit)
}

// sizeOf is what a value costs: bytes of a string, 16 bytes an item of a list or mapping.
func sizeOf(v *exec.Value) int {
	switch {
	case v == nil || v.IsNil() || v.IsError():
		return 0
	case v.IsString():
		return len(v.String())
	case v.IsList() || v.IsDict():
		return 16 * v.Len()
	}
	return 0
}

// maxValueDepth is the deepest nesting of lists and mappings a template may print, compare or
// pass on: gonja prints and compares values by recursion, and a list nested a million deep
// (or a namespace holding itself) would overflow the Go stack. Real templates nest tool
// schemas a few levels deep.
const maxValueDepth = 256

// checkShape walks v without recursion and refuses it when it nests deeper than
// maxValueDepth (a value that holds itself nests without end) or is made of more items than
// the render has bytes left for at 16 a piece (a list of itself twice, nested sixty times,
// prints 2⁶⁰ items).
func (b *budget) checkShape(v any) error {
	if b.err != nil {
		return b.err
	}
	key, ok := keyOf(v)
	if _, seen := b.shaped[key]; ok && seen {
		return nil
	}
	if err := shapeError(v, (b.lim.Bytes-b.bytes)/16); err != nil {
		return b.fail(err)
	}
	if ok {
		if b.shaped == nil {
			b.shaped = map[shapeKey]any{}
		}
		b.shaped[key] = v
	}
	return nil
}

// checkShapeNow is checkShape for a value that may have changed in place since it was last
// checked (a namespace after {% set ns.x = … %}).
func (b *budget) checkShapeNow(v any) error {
	if key, ok := keyOf(v); ok {
		delete(b.shaped, key)
	}
	return b.checkShape(v)
}

// keyOf is v's identity when it is a list or a mapping.
func keyOf(v any) (shapeKey, bool) {
	if x, ok := v.(*exec.Value); ok {
		if x == nil || x.IsString() || x.IsNumber() || x.IsBool() || x.IsNil() {
			return shapeKey{}, false
		}
		v = x.Interface()
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice:
		if rv.Len() > 0 {
			return shapeKey{rv.Pointer(), rv.Len()}, true
		}
	case reflect.Map, reflect.Pointer:
		if !rv.IsNil() {
			return shapeKey{rv.Pointer(), -1}, true
		}
	}
	return shapeKey{}, false
}

// shapeError is checkShape's walk, with room the most items v may hold.
func shapeError(v any, room int) error {
	type item struct {
		v any
		d int
	}
	stack := []item{{v, 0}}
	for n := 0; len(stack) > 0; n++ {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.d > maxValueDepth {
			return fmt.Errorf("%w: it makes a value nested more than %d deep (or holding itself)", ErrLimit, maxValueDepth)
		}
		if n > room {
			return tooMany(room)
		}
		push := func(x any) { stack = append(stack, item{x, it.d + 1}) }
		// fits says whether k more items leave the walk within room: every item on the stack
		// is still to be counted, so a list that does not fit fails before it is pushed (a
		// doubled list of millions was pushed item by item, then counted, under -race for
		// seconds).
		fits := func(k int) bool {
			if n+len(stack)+k > room {
				return false
			}
			stack = slices.Grow(stack, k)
			return true
		}
		switch x := it.v.(type) {
		case nil, string, bool, int, float64:
		case *exec.Value:
			if x != nil && !x.IsString() && !x.IsNumber() && !x.IsBool() && !x.IsNil() {
				stack = append(stack, item{x.Interface(), it.d})
			}
		case exec.Dict:
			if !fits(len(x.Pairs)) {
				return tooMany(room)
			}
			for _, p := range x.Pairs {
				push(p.Value)
			}
		case *exec.Dict:
			if x != nil {
				if !fits(len(x.Pairs)) {
					return tooMany(room)
				}
				for _, p := range x.Pairs {
					push(p.Value)
				}
			}
		default:
			rv := reflect.ValueOf(x)
			switch rv.Kind() {
			case reflect.Slice, reflect.Array:
				if rv.Type().Elem().Kind() == reflect.Uint8 {
					continue
				}
				if !fits(rv.Len()) {
					return tooMany(room)
				}
				for i := range rv.Len() {
					if e := rv.Index(i); e.CanInterface() {
						push(e.Interface())
					}
				}
			case reflect.Map:
				if !fits(rv.Len()) {
					return tooMany(room)
				}
				iter := rv.MapRange()
				for iter.Next() {
					if e := iter.Value(); e.CanInterface() {
						push(e.Interface())
					}
				}
			case reflect.Pointer, reflect.Interface:
				if !rv.IsNil() && rv.Elem().CanInterface() {
					push(rv.Elem().Interface())
				}
			}
		}
	}
	return nil
}

// tooMany is shapeError's error for a value of more than room items.
func tooMany(room int) error {
	return fmt.Errorf("%w: it makes a value of more than %d items", ErrLimit, room)
}
