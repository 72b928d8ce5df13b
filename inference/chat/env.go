package chat

import (
	"fmt"
	"sync"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/nikolalohinski/gonja/v2/logging"
	"github.com/nikolalohinski/gonja/v2/parser"
)

// templateName is the name the template source is stored under in its private loader. The
// loader holds nothing else, so {% include %} or {% import %} in a downloaded template cannot
// read files.
const templateName = "/chat_template"

var (
	envOnce sync.Once
	env     *exec.Environment
	cfg     *config.Config
)

// environment returns the gonja environment that matches transformers' chat template
// renderer: ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) with a
// tojson filter that is json.dumps(x, ensure_ascii=False) and a strftime_now global. Render
// adds raise_exception.
func environment() (*exec.Environment, *config.Config) {
	envOnce.Do(func() {
		// gonja logs (through logrus) when a value has an unexpected type; a chat template's
		// failures come back as errors, so keep its log quiet.
		logging.SetEnabled(false)

		filters := exec.NewFilterSet(map[string]exec.FilterFunction{})
		filters.Update(builtins.Filters)
		for name, fn := range map[string]exec.FilterFunction{"tojson": filterToJSON, "trim": filterTrim, "items": filterItems, "list": filterList} {
			if err := filters.Replace(name, fn); err != nil {
				panic("chat: " + err.Error())
			}
		}

		guardFilters(filters)

		tests := exec.NewTestSet(map[string]exec.TestFunction{})
		tests.Update(builtins.Tests)
		for name, want := range map[string]bool{"true": true, "false": false} {
			// Jinja2's `is true`/`is false` are identity tests: 0, "" and none are not false.
			if err := tests.Replace(name, func(_ *exec.Context, in *exec.Value, _ *exec.VarArgs) (bool, error) {
				return in.IsBool() && in.Bool() == want, nil
			}); err != nil {
				panic("chat: " + err.Error())
			}
		}

		ctx := exec.EmptyContext().Update(builtins.GlobalFunctions).Update(builtins.GlobalVariables)
		ctx.Set("strftime_now", strftimeNow)
		ctx.Set(ifElseName, ifElse)
		for name, fn := range sandboxGlobals() {
			ctx.Set(name, fn)
		}

		env = &exec.Environment{
			Context:           ctx,
			Filters:           filters,
			Tests:             tests,
			ControlStructures: allowedTags(),
			Methods: exec.Methods{
				Bool:  builtins.Methods.Bool,
				Int:   builtins.Methods.Int,
				Float: builtins.Methods.Float,
				Str:   stringMethods(),
				Dict:  dictMethods(),
				List:  builtins.Methods.List,
			},
		}
		cfg = config.New()
		cfg.TrimBlocks = true
		cfg.LeftStripBlocks = true
	})
	return env, cfg
}

// parse parses source and sandboxes it (sandbox.go); a source that cannot be parsed safely, or
// whose loops cannot be bounded, is refused with an error wrapping ErrLimit.
// withoutTags are the tags a chat template may not use: include, import, from and extends load
// other templates, and the only one the loader holds is the template itself ({% include %} of
// itself recursed, while parsing, until the Go stack overflowed); a block can render itself
// through self without end, outside the macro depth count. Chat templates use none of them.
var withoutTags = map[string]bool{"include": true, "import": true, "from": true, "extends": true, "block": true}

// allowedTags are gonja's tags but withoutTags.
func allowedTags() *exec.ControlStructureSet {
	tags := map[string]parser.ControlStructureParser{}
	for _, name := range []string{"autoescape", "block", "filter", "for", "if", "macro", "raw", "set", "with", "do", "break", "continue", "trans", "call", "include", "import", "from", "extends"} {
		if p, ok := builtins.ControlStructures.Get(name); ok && !withoutTags[name] {
			tags[name] = p
		}
	}
	return exec.NewControlStructureSet(tags)
}

func parse(source string) (*exec.Template, error) {
	if err := checkSource(source); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLimit, err)
	}
	env, cfg := environment()
	loader, err := loaders.NewMemoryLoader(map[string]string{templateName: protectMidLineBlocks(source)})
	if err != nil {
		return nil, err
	}
	tpl, err := exec.NewTemplate(templateName, cfg, loader, env)
	if err != nil {
		return nil, err
	}
	if err := sandbox(tpl.Root()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLimit, err)
	}
	return tpl, nil
}

// filterToJSON is transformers' tojson: json.dumps(x, ensure_ascii=False, indent=indent,
// separators=separators, sort_keys=sort_keys).
func filterToJSON(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	var indent, sortKeys *exec.Value
	var separators *exec.Value
	if err := params.Take(
		exec.KeywordArgument("ensure_ascii", exec.AsValue(false), func(*exec.Value) error { return nil }),
		exec.KeywordArgument("indent", exec.AsValue(nil), func(v *exec.Value) error { indent = v; return nil }),
		exec.KeywordArgument("separators", exec.AsValue(nil), func(v *exec.Value) error { separators = v; return nil }),
		exec.KeywordArgument("sort_keys", exec.AsValue(false), func(v *exec.Value) error { sortKeys = v; return nil }),
	); err != nil {
		return exec.AsValue(exec.ErrInvalidCall(err))
	}
	enc := pyJSON{item: ", ", key: ": ", sortKeys: sortKeys.IsTrue()}
	if !indent.IsNil() {
		enc.item = ","
		if indent.IsInteger() {
			enc.indent = spaces(indent.Integer())
		} else {
			enc.indent = indent.String()
		}
		enc.pretty = true
	}
	if !separators.IsNil() && separators.Len() == 2 {
		enc.item, enc.key = separators.Index(0).String(), separators.Index(1).String()
	}
	out, err := enc.encode(in.Interface())
	if err != nil {
		return exec.AsValue(err)
	}
	return exec.AsSafeValue(out)
}

// filterTrim is Jinja2's trim: str.strip(chars), whitespace as Python defines it.
func filterTrim(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	out, err := stripMethod(true, true)(in.String(), in, params)
	if err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(out)
}

func spaces(n int) string {
	b := make([]byte, max(n, 0))
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}
