package chat

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"edgechat/internal/testkit/testenv"
)

// attacks are chat templates that crashed (Go stack overflow), filled memory or hung the app
// before the sandbox, and more of their kind.
var attacks = map[string]string{
	"macro recursion":        `{% macro f(n) %}{{ f(n+1) }}{% endmacro %}{{ f(0) }}`,
	"call recursion":         `{% macro f() %}{% call f() %}x{% endcall %}{% endmacro %}{{ f() }}`,
	"string repeat":          `{{ 'x' * 1000000000 }}`,
	"string repeat in set":   `{% set s = 'x' * 1000000000 %}{{ s|length }}`,
	"string repeat overflow": `{{ 'xy' * 9223372036854775807 }}`,
	"center filter":          `{{ "a"|center(2000000000) }}`,
	"center method":          `{{ "a".center(2000000000) }}`,
	"ljust method":           `{{ "a".ljust(2000000000) }}`,
	"long range loop":        `{% for i in range(100000000) %}x{% endfor %}`,
	"nested loops":           `{% for a in range(1000) %}{% for b in range(1000) %}{% endfor %}{% endfor %}`,
	"nested list loops":      `{% set l = range(500)|list %}{% for a in l %}{% for b in l %}{% for c in l %}{% endfor %}{% endfor %}{% endfor %}`,
	"string doubling":        `{% set ns = namespace(s='xx') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s|length }}`,
	"tilde doubling":         `{% set ns = namespace(s='xx') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}`,
	"list doubling":          `{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = ns.l + ns.l %}{% endfor %}`,
	"join bomb":              `{% set ns = namespace(l=['x' * 100000]) %}{% for i in range(12) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|join }}`,
	"join method bomb":       `{% set ns = namespace(l=['x' * 100000]) %}{% for i in range(12) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ''.join(ns.l) }}`,
	"indent bomb":            `{{ ('\n' * 100000)|indent(100000) }}`,
	"replace bomb":           `{% set s = 'a' * 10000 %}{{ s.replace('a', 'b' * 100000) }}`,
	"replace filter bomb":    `{{ ('a' * 10000)|replace('a', 'b' * 100000) }}`,
	"format width":           `{{ '%2000000000s'|format(1) }}`,
	"format star width":      `{{ '%*d'|format(2000000000, 1) }}`,
	"format method width":    `{{ '{:>{w}}'.format('a', w=2000000000) }}`,
	"filter block":           `{% filter center(2000000000) %}x{% endfilter %}`,
	"map of center":          `{{ ['a']|map('center', 2000000000)|list }}`,
	"include itself":         `x{% include "/chat_template" %}`,
	"import itself":          `{% import "/chat_template" as m %}{{ m }}`,
	"from itself":            `{% from "/chat_template" import f %}{% macro f() %}{% endmacro %}`,
	"extends itself":         `{% extends "/chat_template" %}`,
	"block renders itself":   `{% block b %}{{ self.b() }}{% endblock %}`,
	"batch fill":             `{{ [1]|batch(2000000000, 'x')|list|length }}`,
	"tojson indent":          `{{ [1, [2]]|tojson(indent=2000000000) }}`,
	"text in a loop":         `{% for i in range(150000) %}` + strings.Repeat("0123456789", 100) + `{% endfor %}`,
	"output in a loop":       `{% set s = 'x' * 10000 %}{% for i in range(150000) %}{{ s }}{% endfor %}`,
	"macro output in a loop": `{% macro f() %}{% for i in range(10000) %}{{ 'x' * 10000 }}{% endfor %}{% endmacro %}{{ f() }}`,
	"lipsum":                 `{{ lipsum(1000000000) }}`,
	"recursive loop":         `{% for x in [[[]]] recursive %}{{ loop(x) }}{% endfor %}`,
	"reserved name":          `{% set __edgechat_budget = none %}{{ 'x' * 1000000000 }}`,
	"deep parentheses":       `{{ ` + strings.Repeat("(", 100000) + `1` + strings.Repeat(")", 100000) + ` }}`,
	"deep tags":              strings.Repeat("{% if true %}", 100000) + strings.Repeat("{% endif %}", 100000),
	"many nots":              `{{ ` + strings.Repeat("not ", 60000) + `1 }}`,
	"namespace holds itself": `{% set ns = namespace(a=1) %}{% set ns.me = ns %}{{ ns }}`,
	"namespace compared":     `{% set ns = namespace(a=1) %}{% set ns.me = [ns] %}{{ ns == ns }}`,
	"deep literal":           `{% set ns = namespace(l=[]) %}{% for i in range(20000) %}{% set ns.l = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ns.l]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]] %}{% endfor %}{{ ns.l == ns.l }}`,
	"shared doubling":        `{% set ns = namespace(l=[1]) %}{% for i in range(80) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l }}`,
	"deep list":              `{% set ns = namespace(l=[]) %}{% for i in range(100000) %}{% set ns.l = [ns.l] %}{% endfor %}{{ ns.l }}`,
}

// Each attack is refused when the template is loaded, with a reason, within seconds, and the
// process survives (a Go stack overflow or an out-of-memory would end the test binary).
func TestAttacksRefusedAtLoad(t *testing.T) {
	for name, src := range attacks {
		t.Run(name, func(t *testing.T) {
			clock := testenv.StartClock()
			_, err := New(src)
			took := clock.Elapsed()
			if err == nil {
				t.Fatalf("New accepted the template")
			}
			if !errors.Is(err, ErrTemplate) {
				t.Errorf("error %v is not ErrTemplate", err)
			}
			if errors.Is(err, ErrLimit) && !strings.Contains(err.Error(), "this model's chat template is unsafe to run") {
				t.Errorf("error %q does not say the template cannot be used", err)
			}
			// Most take ≤ 0.5 s; list doubling builds lists up to the byte budget, 0.8 s of
			// CPU built normally and several times that under the race detector. The bound
			// is for a hang, counted in CPU time (testenv.Clock) so that other jobs on a
			// shared machine do not trip it.
			if took > testenv.Bound(15*time.Second) {
				t.Errorf("took %v of CPU time", took)
			}
			t.Logf("%v: %v", took.Round(time.Millisecond), err)
		})
	}
}

// A dict cannot be made to hold itself (gonja's update works on a copy, and the dict
// methods refuse a result that holds itself): the template renders, the process survives.
func TestDictCannotHoldItself(t *testing.T) {
	for _, src := range []string{
		`{% set d = {'a': 1} %}{% do d.update({'d': d}) %}{{ d == d }}{{ d }}`,
		`{% set ns = namespace(d={}) %}{% do ns.d.update({'d': ns.d}) %}{{ ns.d }}`,
	} {
		tpl, err := New(src)
		if err != nil {
			continue
		}
		if _, err := tpl.Render([]Message{{Role: "user", Content: "hi"}}, Options{}); err != nil {
			t.Logf("%s: %v", src, err)
		}
	}
}

// Rendering stops when its context is done, also in a template that would loop for long.
func TestRenderCancelled(t *testing.T) {
	// Within the limits for a long conversation but not for the trial ones, so New accepts it.
	tpl, err := New(`{% if messages|length > 100 %}{% for i in range(50000) %}{{ i }}{% endfor %}{% endif %}`)
	if err != nil {
		t.Fatal(err)
	}
	msgs := make([]Message, 200)
	for i := range msgs {
		msgs[i] = Message{Role: "user", Content: "hi"}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err = tpl.RenderContext(ctx, msgs, Options{})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrTemplate) {
		t.Errorf("error %v, want a cancelled render", err)
	}
	if took := time.Since(start); took > time.Second { // the error shows it stopped; this, that it stopped soon (load allowed for)
		t.Errorf("a cancelled render took %v", took)
	}
	// Without cancelling, it runs to the end: the step and size limits grow with the
	// conversation. The time limit is TestRenderTimeLimit's subject; here it is lifted, since
	// 50,000 loop steps under the race detector on a loaded 2-core machine took over 2.2 s.
	defer func(orig Limits) { baseLimits = orig }(baseLimits)
	baseLimits.Time = time.Minute
	if _, err := tpl.Render(msgs, Options{}); err != nil {
		t.Errorf("render of a long conversation: %v", err)
	}
}

// A render that takes longer than its time limit stops with a reason.
func TestRenderTimeLimit(t *testing.T) {
	tpl, err := New(`{% if messages|length > 7 %}{% for i in range(20000) %}{{ i }}{% endfor %}{% endif %}`)
	if err != nil {
		t.Fatal(err)
	}
	defer func(orig Limits) { baseLimits = orig }(baseLimits)
	baseLimits.Time = time.Millisecond
	msgs := make([]Message, 8)
	for i := range msgs {
		msgs[i] = Message{Role: "user", Content: "hi"}
	}
	_, err = tpl.Render(msgs, Options{})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "took longer than") {
		t.Errorf("error %v, want the time limit", err)
	}
}

// A template that attacks only long conversations passes the load check and is stopped at
// reply time with ErrLimit; the same template goes on rendering short ones.
func TestLimitAtReplyTime(t *testing.T) {
	tpl, err := New(`{% if messages|length > 8 %}{{ 'x' * 1000000000 }}{% endif %}ok`)
	if err != nil {
		t.Fatal(err)
	}
	msgs := make([]Message, 10)
	for i := range msgs {
		msgs[i] = Message{Role: "user", Content: "hi"}
	}
	if _, err := tpl.Render(msgs, Options{}); !errors.Is(err, ErrLimit) {
		t.Errorf("error %v, want ErrLimit", err)
	}
	if out, err := tpl.Render(msgs[:1], Options{}); err != nil || out != "ok" {
		t.Errorf("short conversation: %q, %v", out, err)
	}
}

// FuzzLimits renders templates made of the attacks and their mutations: each call ends within
// seconds, without crashing the process, whatever the template does.
func FuzzLimits(f *testing.F) {
	for _, src := range attacks {
		if len(src) < 1000 {
			f.Add(src, 7)
		}
	}
	f.Add(`{% for i in range(N) %}{{ 'ab' * N }}{% endfor %}`, 1<<20)
	f.Add(`{% macro f(n) %}{% if n > 0 %}{{ f(n-1) }}{% endif %}{% endmacro %}{{ f(N) }}`, 60)
	f.Fuzz(func(t *testing.T, src string, n int) {
		src = strings.ReplaceAll(src, "N", itoa(n))
		clock := testenv.StartClock()
		tpl, err := New(src)
		if err == nil {
			_, _ = tpl.Render([]Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}}, Options{AddGenerationPrompt: true})
		}
		if took := clock.Elapsed(); took > testenv.Bound(10*time.Second) {
			t.Errorf("%q took %v of CPU time", src, took)
		}
	})
}

func itoa(n int) string {
	var b strings.Builder
	if n < 0 {
		b.WriteByte('-')
		n = -n
	}
	d := []byte{}
	for {
		d = append([]byte{byte('0' + n%10)}, d...)
		n /= 10
		if n <= 0 {
			break
		}
	}
	b.Write(d)
	return b.String()
}
