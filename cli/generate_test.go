package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/inference"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
)

func writeTinyModel(t *testing.T) string {
	t.Helper()
	o := synth.Tiny()
	o.TokenizerDir = testenv.TokenizerDir(t, "qwen3")
	d := filepath.Join(t.TempDir(), "m")
	if err := synth.Write(d, o); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestGenerateJSON(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--model", model, "--ort-lib", lib, "--prompt", "Hi", "--temperature", "0", "--max-tokens", "16", "--json"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var last map[string]any
	lines := 0
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		last = nil
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", lines, err, sc.Text())
		}
	}
	if lines < 2 {
		t.Fatalf("only %d events", lines)
	}
	if last["type"] != "done" {
		t.Fatalf("last event %v", last)
	}
	for _, k := range []string{"prompt_ids", "ids", "finish_reason", "backend", "ttft_ms", "decode_tokens_per_s", "prompt_tokens", "generated_tokens"} {
		if _, ok := last[k]; !ok {
			t.Errorf("final event lacks %q: %v", k, last)
		}
	}
	if last["backend"] != "cpu" {
		t.Errorf("backend %v", last["backend"])
	}
}

// --power pins the mode: battery saver halves the threads and says so in the final event,
// and the greedy reply is the same.
func TestGeneratePowerMode(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	done := func(power string) map[string]any {
		return lastEvent(t, "--model", model, "--ort-lib", lib, "--prompt", "Hi", "--temperature", "0",
			"--max-tokens", "12", "--threads", "2", "--power", power)
	}
	full, saver := done("performance"), done("saver")
	for _, c := range []struct {
		got  map[string]any
		want string
	}{
		{full, `{"mode":"performance","threads":2,"why":"pinned"}`},
		{saver, `{"mode":"saver","threads":1,"why":"pinned"}`},
	} {
		if b, _ := json.Marshal(c.got["power"]); string(b) != c.want {
			t.Errorf("power %s, want %s", b, c.want)
		}
	}
	if a, b := fmt.Sprint(full["ids"]), fmt.Sprint(saver["ids"]); a != b {
		t.Errorf("battery saver changed the greedy reply: %s, full speed %s", b, a)
	}
}

func TestGeneratePrintPrompt(t *testing.T) {
	model := writeTinyModel(t)
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--model", model, "--system", "You are helpful.", "--prompt", "Hi", "--no-think", "--print-prompt"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
	if out.String() != want {
		t.Fatalf("prompt:\n%q\nwant\n%q", out.String(), want)
	}
}

// A private-use character (and a forged marker) in a message reaches the printed prompt as
// typed; it once made every reply fail.
func TestGeneratePrintPromptPrivateUse(t *testing.T) {
	model := writeTinyModel(t)
	var out, errb bytes.Buffer
	prompt := "see \uE000 and \uE0000\uE001 here"
	code := Run([]string{"generate", "--model", model, "--prompt", prompt, "--no-think", "--print-prompt"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if want := "<|im_start|>user\n" + prompt + "<|im_end|>\n"; !strings.Contains(out.String(), want) {
		t.Fatalf("prompt:\n%q\nwant it to hold\n%q", out.String(), want)
	}
}

func TestGenerateErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"generate", "--prompt", "Hi"}, "--model is required"},
		{[]string{"generate", "--model", "x"}, "--prompt"},
		{[]string{"generate", "--model", "/nonexistent/model", "--prompt", "Hi"}, "does not exist"},
		{[]string{"generate", "--model", "x", "--prompt", "Hi", "--power", "eco"}, "--power eco: choose one of auto, performance, saver"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := Run(c.args, strings.NewReader(""), &out, &errb); code == 0 {
			t.Errorf("%v: exit 0", c.args)
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, errb.String(), c.want)
		}
	}
}

func TestGenerateHybridFallsBackWithReason(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--npu-model", model, "--npu-ep", "qnn", "--cpu-model", model, "--ort-lib", lib,
		"--prompt", "Hi", "--temperature", "0", "--max-tokens", "4", "--json"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last["backend"] != "cpu" || !strings.Contains(last["fallback_reason"].(string), "QNN execution provider is not supported") {
		t.Fatalf("final event %v", last)
	}
}

func TestModelFlagsRoutes(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--model", "/m"}, []string{"cpu/cpu"}},
		{[]string{"--model", "/m", "--ep", "qnn"}, []string{"npu/qnn"}},
		{[]string{"--model", "/m", "--ep", "dml"}, []string{"npu/dml"}},
		{[]string{"--npu-model", "/n", "--model", "/m"}, []string{"npu/qnn", "cpu/cpu"}},
		{[]string{"--npu-model", "/n", "--npu-ep", "dml", "--cpu-model", "/c"}, []string{"npu/dml", "cpu/cpu"}},
		{[]string{"--npu-model", "/n"}, []string{"npu/qnn"}},
		{[]string{"--cpu-model", "/c", "--ep", "qnn"}, []string{"cpu/cpu"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var m modelFlags
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			m.register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			cfg, err := m.engineConfig()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range cfg.Routes {
				got = append(got, r.Name+"/"+r.EP.Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("routes (-want +got):\n%s", diff)
			}
		})
	}
	var m modelFlags
	if _, err := m.engineConfig(); err == nil || !strings.Contains(err.Error(), "--model is required") {
		t.Errorf("no model: %v", err)
	}
}

// --kv-cache reaches every route's load options (auto by default; --kv-int8 is 8), and a value
// it does not know, or --kv-int8 against --kv-cache 32, is an error that names the flags.
func TestModelFlagsKVCache(t *testing.T) {
	tests := []struct {
		args []string
		want inference.KVCache
		err  string
	}{
		{nil, inference.KVAuto, ""},
		{[]string{"--kv-cache", "auto"}, inference.KVAuto, ""},
		{[]string{"--kv-cache", "32"}, inference.KV32, ""},
		{[]string{"--kv-cache", "32-bit"}, inference.KV32, ""},
		{[]string{"--kv-cache", "8"}, inference.KV8, ""},
		{[]string{"--kv-int8"}, inference.KV8, ""},
		{[]string{"--kv-int8", "--kv-cache", "8-bit"}, inference.KV8, ""},
		{[]string{"--kv-int8", "--kv-cache", "32"}, 0, "give one of them"},
		{[]string{"--kv-cache", "16"}, 0, "--kv-cache 16: choose auto, 32 or 8"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var m modelFlags
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			m.register(fs)
			if err := fs.Parse(append([]string{"--npu-model", "/n", "--npu-ep", "cpu", "--model", "/m"}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			cfg, err := m.engineConfig()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range cfg.Routes {
				if r.KVCache != tt.want {
					t.Errorf("route %s: KV cache %v, want %v", r.Name, r.KVCache, tt.want)
				}
			}
		})
	}
}

// lastEvent runs generate --json and returns its final event.
func lastEvent(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Run(append([]string{"generate", "--json"}, args...), strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("generate %v: exit %d: %s", args, code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	return last
}

// A Foundry Local-style NPU folder (Qualcomm stage names told apart by their flags, other
// sequence-length names, is_lm_head, right-aligned windows) runs on the CPU EP exactly as the
// Windows ML bundle of the same weights does, and an NPU route on it falls back with a reason.
func TestGenerateFoundryNPUFolder(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	write := func(layout synth.Layout) string {
		o := synth.Tiny()
		o.Layout, o.KVFloat16 = layout, true
		o.TokenizerDir = testenv.TokenizerDir(t, "qwen3")
		d := filepath.Join(t.TempDir(), string(layout))
		if err := synth.Write(d, o); err != nil {
			t.Fatal(err)
		}
		return d
	}
	bundle, foundry := write(synth.LayoutBundle), write(synth.LayoutFoundry)
	// 70 prompt tokens: more than one 64-row window, the second one partial.
	prompt := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 6)
	args := []string{"--ort-lib", lib, "--prompt", prompt, "--temperature", "0", "--max-tokens", "12"}
	want := lastEvent(t, append([]string{"--model", bundle}, args...)...)
	got := lastEvent(t, append([]string{"--model", foundry}, args...)...)
	if got["finish_reason"] == "error" || len(got["ids"].([]any)) == 0 {
		t.Fatalf("foundry folder: %v", got)
	}
	if diff := cmp.Diff(want["ids"], got["ids"]); diff != "" {
		t.Errorf("greedy ids, bundle vs foundry (-want +got):\n%s", diff)
	}
	if n := len(got["prompt_ids"].([]any)); n <= 64 {
		t.Errorf("prompt of %d tokens fits one window; the test wants two", n)
	}
	fb := lastEvent(t, append([]string{"--npu-model", foundry, "--npu-ep", "qnn", "--cpu-model", foundry}, args...)...)
	if fb["backend"] != "cpu" || !strings.Contains(fmt.Sprint(fb["fallback_reason"]), "QNN") {
		t.Errorf("NPU route on a machine without QNN: %v", fb)
	}
	if diff := cmp.Diff(want["ids"], fb["ids"]); diff != "" {
		t.Errorf("greedy ids after fallback (-want +got):\n%s", diff)
	}
}

// A --max-tokens over the model's context (2^53 once panicked in makeslice) is refused
// with the numbers.
func TestGenerateMaxTokensOverContext(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--model", model, "--ort-lib", lib, "--prompt", "Hi", "--max-tokens", "9007199254740992"}, strings.NewReader(""), &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "context holds 4096 tokens") {
		t.Fatalf("exit %d, stderr %q; want a refusal that gives the context", code, errb.String())
	}
}

// The real stories260K model continues "Once upon a time" with its README's text, and --json
// gives the reference's prompt ids and ids.
func TestGenerateRawStories(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	stories := testenv.SharedModel(t, "stories260K")
	args := []string{"generate", "--raw", "--model", stories, "--ort-lib", lib, "--prompt", testenv.StoriesPrompt, "--temperature", "0", "--max-tokens", "40"}
	var out, errb bytes.Buffer
	if code := Run(args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if diff := cmp.Diff(testenv.StoriesText+"\n", out.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	if strings.Contains(errb.String(), "ChatML") {
		t.Errorf("a raw completion mentions the chat template: %s", errb.String())
	}
	last := lastEvent(t, args[1:]...)
	ids := func(k string) []int {
		var v []int
		b, _ := json.Marshal(last[k])
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		return v
	}
	if diff := cmp.Diff(testenv.StoriesPromptIDs, ids("prompt_ids")); diff != "" {
		t.Errorf("prompt_ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(testenv.StoriesIDs, ids("ids")); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

func TestGenerateRawRefusesChatFlags(t *testing.T) {
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--system", "Be brief."}, "no --system"},
		{[]string{"--attach", "notes.txt"}, "no --attach"},
		{[]string{"--messages", "conv.json"}, "no --messages"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"generate", "--raw", "--model", "x", "--prompt", "Once"}, c.flags...)
		if code := Run(args, strings.NewReader(""), &out, &errb); code == 0 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want a refusal naming %q", c.flags, code, errb.String(), c.want)
		}
	}
}

// bench --lookup runs stories260K both ways through the engine (continue, reuse, quote): the
// same tokens, fewer decoder runs with lookup, and the counts in the JSON; --no-lookup gives
// the same text.
func TestBenchLookupStories(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	stories := testenv.SharedModel(t, "stories260K")
	args := []string{"bench", "--model", stories, "--ort-lib", lib, "--seq-len", "8", "--iterations", "1", "--warmup", "0",
		"--lookup", "200", "--rounds", "1", "--prompt", testenv.StoriesPrompt, "--json"}
	var out, errb bytes.Buffer
	if code := Run(args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r struct {
		Lookup []lookupCase `json:"lookup"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Lookup) != 3 {
		t.Fatalf("lookup cases %+v", r.Lookup)
	}
	for _, c := range r.Lookup {
		if !c.Same || c.Tokens < 50 || c.Runs == 0 || c.Runs >= c.Tokens-1 || c.AcceptanceRate <= 0 {
			t.Errorf("%s: %+v", c.Name, c)
		}
	}
	gen := func(extra ...string) string {
		var out, errb bytes.Buffer
		a := append([]string{"generate", "--raw", "--model", stories, "--ort-lib", lib, "--prompt", testenv.StoriesPrompt, "--temperature", "0", "--max-tokens", "200"}, extra...)
		if code := Run(a, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		if want := len(extra) == 0; strings.Contains(errb.String(), "[lookup]") != want {
			t.Errorf("%v: lookup line shown %v, want %v: %s", extra, !want, want, errb.String())
		}
		return out.String()
	}
	if a, b := gen(), gen("--no-lookup"); a != b {
		t.Errorf("with lookup:\n%s\nwithout:\n%s", a, b)
	}
}

// A bad --model prints its error, not an empty statistics line before it.
func TestGenerateBadModelNoStatsLine(t *testing.T) {
	dir := t.TempDir() // a folder without a model
	var out, errb bytes.Buffer
	code := Run([]string{"generate", "--model", dir, "--prompt", "Hi"}, strings.NewReader(""), &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "has no ONNX model") {
		t.Fatalf("exit %d, stderr %q; want a failure naming the missing model", code, errb.String())
	}
	if strings.Contains(errb.String(), "generated tokens") || strings.Contains(errb.String(), "[error]") {
		t.Errorf("stderr %q has an empty statistics line", errb.String())
	}
}
