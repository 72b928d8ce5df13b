package decoder

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/inference/sample"
	"edgechat/reply"

	"github.com/google/go-cmp/cmp"

	"edgechat/inference"
	"edgechat/internal/eps"
	"edgechat/internal/testkit/synth"
	"edgechat/models"
	"edgechat/onnx/proto"
)

func tinyBundle(t testing.TB) string {
	return synthModel(t, "tiny-bundle", func(o *synth.Options) { o.Layout = synth.LayoutBundle })
}

// loadDecoder loads the model at path on the CPU and returns its decoder.
func loadDecoder(t testing.TB, path string) inference.Decoder {
	t.Helper()
	m, err := loadModel(path, inference.LoadOptions{EP: inference.EP{Name: "cpu", Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m.Decoder()
}

// idsOfLength is a prompt of n token ids spread over the vocabulary.
func idsOfLength(n, seed int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = (i*7919 + 101 + seed*104729) % 151000
	}
	return ids
}

// greedyDecode runs prompt (the cache keeps what it holds) and n greedy tokens.
func greedyDecode(t testing.TB, d inference.Decoder, prompt []int, n int) []int {
	t.Helper()
	logits, err := d.Forward(context.Background(), prompt)
	var out []int
	for err == nil && len(out) < n {
		out = append(out, sample.Argmax(logits))
		if len(out) < n {
			logits, err = d.Forward(context.Background(), out[len(out)-1:])
		}
	}
	if err != nil {
		t.Fatalf("after %d cached and %d decoded tokens: %v", len(d.Cached()), len(out), err)
	}
	return out
}

// requireVaried fails when a reply is one token repeated: the synthetic-model trap, where such
// a comparison proves nothing.
func requireVaried(t *testing.T, ids []int) {
	t.Helper()
	if len(ids) > 1 && slices.IndexFunc(ids, func(id int) bool { return id != ids[0] }) < 0 {
		t.Fatalf("greedy reply repeats one token: %v", ids)
	}
}

// The bundle (float32 KV, GroupQueryAttention) gives the dynamic model's greedy tokens for
// prompts around the 64-row window, and for one that needs four windows. The float32 buffer
// matches the dynamic graph to 1e-4 in logits (internal/testkit/synth's TestBundleMatchesDynamic), so
// the greedy ids must agree exactly.
func TestBundleMatchesDynamic(t *testing.T) {
	dyn, bun := loadDecoder(t, tinyModel(t)), loadDecoder(t, tinyBundle(t))
	if bun.Capacity() != 256 {
		t.Fatalf("Capacity = %d, want the context_length 256", bun.Capacity())
	}
	for _, n := range []int{1, 63, 64, 65, 200} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dyn.Truncate(0)
			bun.Truncate(0)
			prompt := idsOfLength(n, 0)
			want := greedyDecode(t, dyn, prompt, 16)
			got := greedyDecode(t, bun, prompt, 16)
			requireVaried(t, want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("greedy ids (-dynamic +bundle):\n%s", diff)
			}
			if !slices.Equal(bun.Cached(), append(prompt, got[:15]...)) {
				t.Errorf("Cached() holds %d ids, want the prompt and 15 decoded", len(bun.Cached()))
			}
		})
	}
}

// A float16 buffer runs GroupQueryAttention in float16 (queries, keys, values and rotary
// tables rounded), while the dynamic float16-KV graph computes in float32 and only stores
// float16: logits differ by ~0.1% (synth's TestBundleMatchesDynamic bounds them at 0.3%). With
// these seeded weights no greedy choice is that close, so the ids agree; a change of weights
// that makes this fail on a near-tie late in a reply is not a bundle bug (the float32 test
// above is the exact one).
func TestBundleFP16MatchesFP16Dynamic(t *testing.T) {
	fp16 := synthModel(t, "tiny-bundle-fp16", func(o *synth.Options) { o.Layout, o.KVFloat16 = synth.LayoutBundle, true })
	dyn, bun := loadDecoder(t, tinyFP16(t)), loadDecoder(t, fp16)
	for _, n := range []int{1, 65, 200} {
		dyn.Truncate(0)
		bun.Truncate(0)
		prompt := idsOfLength(n, 1)
		want, got := greedyDecode(t, dyn, prompt, 16), greedyDecode(t, bun, prompt, 16)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("prompt of %d: greedy ids (-dynamic fp16 +bundle fp16):\n%s", n, diff)
		}
	}
}

// Truncating keeps the first rows; a suffix then prefills in windows that start mid-window at
// the cached length, and one that would pass the buffer's end starts earlier instead.
func TestBundleTruncateAndExtend(t *testing.T) {
	dyn, bun := loadDecoder(t, tinyModel(t)), loadDecoder(t, tinyBundle(t))
	prompt := idsOfLength(240, 2)
	for _, tc := range []struct{ first, keep, total int }{
		{70, 50, 130},   // the suffix starts at row 50: windows 50…113, 114…177
		{100, 100, 101}, // one token: iter
		{200, 200, 240}, // window 200…263 would pass row 255: it runs 192…255
		{240, 37, 240},
	} {
		t.Run(fmt.Sprintf("%d-%d-%d", tc.first, tc.keep, tc.total), func(t *testing.T) {
			bun.Truncate(0)
			greedyDecode(t, bun, prompt[:tc.first], 8)
			bun.Truncate(tc.keep)
			got := greedyDecode(t, bun, prompt[tc.keep:tc.total], 8)
			dyn.Truncate(0)
			want := greedyDecode(t, dyn, prompt[:tc.total], 8)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("greedy ids after reuse (-fresh dynamic +bundle):\n%s", diff)
			}
		})
	}
}

// A reply that reaches context_length ends with finish reason "length", not an error.
func TestBundleStopsAtContextLength(t *testing.T) {
	model := synthModel(t, "tiny-bundle-128", func(o *synth.Options) { o.Layout, o.ContextLength = synth.LayoutBundle, 128 })
	e := newTestEngine(t, model, nil)
	_, sum := collect(t, e, context.Background(), greedy("Write a long story about the sea.", 1000))
	if sum.Err != nil || sum.FinishReason != reply.FinishLength {
		t.Fatalf("finish %q, error %q", sum.FinishReason, sum.Err)
	}
	if sum.PromptTokens+sum.GeneratedTokens != 128 {
		t.Errorf("prompt %d + reply %d tokens, want the context length 128", sum.PromptTokens, sum.GeneratedTokens)
	}
	if sum.Backend != "cpu" || sum.Device != "CPU" {
		t.Errorf("backend %q device %q", sum.Backend, sum.Device)
	}
}

// A second turn reuses the first's cache and gives a fresh engine's tokens.
func TestBundleSecondTurnReusesCache(t *testing.T) {
	model := tinyBundle(t)
	e := newTestEngine(t, model, nil)
	first := greedy("Tell me about the sea.", 12)
	evs, s1 := collect(t, e, context.Background(), first)
	answer, _ := replyText(evs)
	second := first
	second.Messages = append(slices.Clone(first.Messages), reply.Message{Role: "assistant", Content: answer}, reply.Message{Role: "user", Content: "And the mountains?"})
	_, reused := collect(t, e, context.Background(), second)
	_, fresh := collect(t, newTestEngine(t, model, nil), context.Background(), second)
	for _, s := range []*reply.Summary{s1, reused, fresh} {
		if s.Err != nil {
			t.Fatal(s.Err)
		}
	}
	if reused.ReusedTokens == 0 || fresh.ReusedTokens != 0 {
		t.Errorf("reused %d tokens on the same engine and %d on a fresh one", reused.ReusedTokens, fresh.ReusedTokens)
	}
	if !slices.Equal(reused.IDs, fresh.IDs) || len(fresh.IDs) == 0 {
		t.Errorf("second turn differs:\nreused %v\nfresh  %v", reused.IDs, fresh.IDs)
	}
}

// A bundle route whose stages cannot load fails as a whole: the engine falls back to the next
// route and says why.
func TestBundleRouteFallsBack(t *testing.T) {
	corrupt := copyModel(t, tinyBundle(t))
	writeFile(t, filepath.Join(corrupt, synth.BundleContextFile), "not an onnx model")
	for _, tc := range []struct {
		name, model, ep, reason string
	}{
		{"qnn missing", tinyBundle(t), "qnn", "QNN execution provider is not supported in this build"},
		{"corrupt ctx", corrupt, "cpu", synth.BundleContextFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := inference.New(inference.Config{Open: Open, Routes: []inference.RouteConfig{
				{Name: "npu", Model: tc.model, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: tc.ep}}},
				{Name: "cpu", Model: tinyModel(t), LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu"}}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			_, sum := collect(t, e, context.Background(), greedy("Hi", 4))
			if sum.Err != nil || sum.Backend != "cpu" {
				t.Fatalf("backend %q, error %q", sum.Backend, sum.Err)
			}
			if !strings.Contains(sum.FallbackReason, tc.reason) {
				t.Errorf("fallback reason %q does not mention %q", sum.FallbackReason, tc.reason)
			}
			t.Log(sum.FallbackReason)
		})
	}
}

// epContextGraph is a compiled-model stand-in: one EPContext node whose context binary is
// the file bin. It only has to reach the loader's checks, not run.
func epContextGraph(t *testing.T, path, bin string, in, out []proto.ValueInfo) {
	t.Helper()
	m := &proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}}}
	m.Graph.Name = "compiled"
	m.Graph.Inputs, m.Graph.Outputs = in, out
	m.Graph.Nodes = []proto.Node{{Name: "ctx_0", OpType: "EPContext", Domain: "com.microsoft", Inputs: []string{in[0].Name}, Outputs: []string{out[0].Name},
		Attrs: []proto.Attr{proto.IntAttr("embed_mode", 0), proto.StringAttr("ep_cache_context", bin), proto.StringAttr("source", "QNN"), proto.IntAttr("main_context", 1)}}}
	if err := m.WriteFile(path, proto.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// ioOf reads a graph's inputs and outputs back as value infos (for a stand-in with the same
// interface).
func ioOf(t *testing.T, path string) (in, out []proto.ValueInfo) {
	t.Helper()
	info, err := proto.ReadInfo(path)
	if err != nil {
		t.Fatal(err)
	}
	conv := func(list []proto.IO) []proto.ValueInfo {
		var vs []proto.ValueInfo
		for _, v := range list {
			dt := map[string]proto.DataType{"float32": proto.Float, "float16": proto.Float16, "int32": proto.Int32, "int64": proto.Int64}[v.ElemType]
			vs = append(vs, proto.ValueInfo{Name: v.Name, Type: dt, Dims: v.Dims})
		}
		return vs
	}
	return conv(info.Inputs), conv(info.Outputs)
}

// A compiled (EPContext) bundle: inspect flags it as needing QNN and names the missing context
// binary; loading refuses it with that file's name, then on any route but a QNN one, then on a
// QNN route without QNN with ONNX Runtime's words.
func TestCompiledBundle(t *testing.T) {
	dir := copyModel(t, tinyBundle(t))
	for _, f := range []string{synth.BundleContextFile, synth.BundleIteratorFile} {
		in, out := ioOf(t, filepath.Join(dir, f))
		epContextGraph(t, filepath.Join(dir, f), "qnn_ctx_9f2e.bin", in, out)
	}
	r, err := models.Inspect(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(r.Notes, "\n")
	if !r.NeedsQNN || !strings.Contains(notes, "QNN-enabled ONNX Runtime") || !strings.Contains(notes, "qnn_ctx_9f2e.bin is missing") {
		t.Errorf("needs QNN %v, notes:\n%s", r.NeedsQNN, notes)
	}
	if got := r.Graphs[1].EPContexts; !slices.Equal(got, []string{"qnn_ctx_9f2e.bin"}) {
		t.Errorf("ctx context binaries %v", got)
	}
	// Loading refuses the bundle with the missing file's name; with the file there, on
	// any route but a QNN one; on a QNN route without QNN, with ONNX Runtime's words.
	for _, c := range []struct{ ep, bin, want string }{
		{"cpu", "", "qnn_ctx_9f2e.bin is missing"},
		{"cpu", "qnn_ctx_9f2e.bin", "runs only on the NPU (with an ONNX Runtime that offers QNN), not on CPU"},
		{"qnn", "qnn_ctx_9f2e.bin", "QNN execution provider is not supported in this build"},
	} {
		if c.bin != "" {
			writeFile(t, filepath.Join(dir, c.bin), "context binary")
		}
		_, err = loadModel(dir, inference.LoadOptions{EP: inference.EP{Name: c.ep}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("load on %s: got %v, want %q", c.ep, err, c.want)
		}
	}
}

// Session options of each stage: the route's EP for the accelerated stages, with the config's
// provider options under the route's; the CPU otherwise.
func TestBundleStageEP(t *testing.T) {
	cfg := readBundleStages(t)
	route := inference.EP{Name: "qnn", Options: map[string]string{"htp_performance_mode": "sustained_high_performance"}}
	want := map[string]inference.EP{
		"embeddings": {Name: "cpu"},
		"context": {Name: "qnn", Threads: 2, Options: map[string]string{"backend_path": "QnnHtp.dll", "htp_performance_mode": "sustained_high_performance",
			"htp_graph_finalization_optimization_mode": "3", "soc_model": "60"}},
		"lm_head": {Name: "cpu"},
	}
	for name, w := range want {
		if diff := cmp.Diff(w, stageEP(cfg[name], route)); diff != "" {
			t.Errorf("%s on a QNN route (-want +got):\n%s", name, diff)
		}
		if got := stageEP(cfg[name], inference.EP{Name: "cpu", Threads: 3}); got.Name != "cpu" || got.Threads != 3 || got.Options != nil {
			t.Errorf("%s on a CPU route: %+v", name, got)
		}
	}
	// In battery saver mode the CPU stages do not spin either; the QNN stage runs balanced.
	saver := inference.EP{Name: "qnn", Threads: 1, Options: eps.SaverOptions("qnn", route.Options, "")}
	if got := stageEP(cfg["lm_head"], saver); !cmp.Equal(got, inference.EP{Name: "cpu", Threads: 1, Options: map[string]string{eps.SpinKey: "0"}}) {
		t.Errorf("lm_head on a battery saver route: %+v", got)
	}
	if got := stageEP(cfg["context"], saver); got.Options[eps.HTPModeKey] != "balanced" || got.Options[eps.SpinKey] != "0" || got.Threads != 1 {
		t.Errorf("context on a battery saver route: %+v", got)
	}
}

func readBundleStages(t *testing.T) map[string]models.Stage {
	t.Helper()
	f, err := models.Open(tinyBundle(t), "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]models.Stage{}
	for _, s := range f.GenAI.Model.Decoder.Pipeline {
		out[s.Name] = s
	}
	return out
}

// Stages sharing a context binary load it once (ep.share_ep_contexts=1); a compiled model is
// never compiled again (ep.context_enable is dropped even when the config sets it).
func TestBundleStageSessionConfig(t *testing.T) {
	initORT(t)
	s := models.Stage{Name: "context", Filename: "ctx.onnx"}
	s.SessionOptions.ConfigEntries = map[string]string{"ep.context_enable": "1", "session.disable_cpu_ep_fallback": "1", "session.intra_op.allow_spinning": "0"}
	for _, share := range []bool{false, true} {
		opts, _, err := stageOptions(s, inference.EP{Name: "cpu", Threads: 1}, share)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, k := range []string{"ep.share_ep_contexts", "ep.context_enable", "session.disable_cpu_ep_fallback", "session.intra_op.allow_spinning"} {
			if got[k], err = opts.HasSessionConfigEntry(k); err != nil {
				t.Fatal(err)
			}
		}
		opts.Destroy()
		want := map[string]bool{"ep.share_ep_contexts": share, "ep.context_enable": false, "session.disable_cpu_ep_fallback": false, "session.intra_op.allow_spinning": true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("share=%v: config entries set (-want +got):\n%s", share, diff)
		}
	}
	a := &proto.ModelInfo{EPContexts: []proto.EPContext{{CacheContext: "qnn_ctx.bin"}}}
	b := &proto.ModelInfo{EPContexts: []proto.EPContext{{CacheContext: "qnn_ctx.bin"}}}
	c := &proto.ModelInfo{EPContexts: []proto.EPContext{{CacheContext: "other.bin"}}}
	if !sharedContext(a, b) || sharedContext(a, c) || sharedContext(a, &proto.ModelInfo{}) {
		t.Error("sharedContext")
	}
}

// Without run_on_prompt / run_on_token_gen, ctx and iter are told apart by their row count.
func TestBundleStagesWithoutRunFlags(t *testing.T) {
	dir := copyModel(t, tinyBundle(t))
	path := filepath.Join(dir, "genai_config.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, st := range cfg["model"].(map[string]any)["decoder"].(map[string]any)["pipeline"].([]any) {
		for _, v := range st.(map[string]any) {
			delete(v.(map[string]any), "run_on_prompt")
			delete(v.(map[string]any), "run_on_token_gen")
		}
	}
	b, _ = json.Marshal(cfg)
	writeFile(t, path, string(b))
	prompt := idsOfLength(65, 5)
	want := greedyDecode(t, loadDecoder(t, tinyBundle(t)), prompt, 8)
	if got := greedyDecode(t, loadDecoder(t, dir), prompt, 8); !slices.Equal(want, got) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// The flags decide before the graphs: is_lm_head and run_on_prompt / run_on_token_gen, with
// ONNX Runtime GenAI's default of true for a flag left out.
func TestStageRole(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	n := models.BundleNames{InputIDs: "input_ids", PastKey: "past_key_values.%d.key", Logits: "logits"}
	decoder := func(rows int64) *proto.ModelInfo {
		return &proto.ModelInfo{Inputs: []proto.IO{{Name: "hidden", Dims: []proto.Dim{{Value: 1}, {Value: rows}, {Value: 64}}}, {Name: "past_key_values.0.key"}}}
	}
	embeddings := &proto.ModelInfo{Inputs: []proto.IO{{Name: "input_ids"}}}
	head := &proto.ModelInfo{Outputs: []proto.IO{{Name: "logits"}}}
	for _, tc := range []struct {
		name        string
		prompt, gen *bool
		lmHead      *bool
		info        *proto.ModelInfo
		want        int
		wantErr     string
	}{
		{"ctx by its flags, though it takes one row", yes, no, nil, decoder(1), 1, ""},
		{"iter by its flags, though it takes many rows", no, yes, nil, decoder(64), 2, ""},
		{"iter by a flag alone", no, nil, nil, decoder(64), 2, ""},
		{"no flags: many rows is ctx", nil, nil, nil, decoder(64), 1, ""},
		{"no flags: one row is iter", nil, nil, nil, decoder(1), 2, ""},
		{"is_lm_head first", yes, yes, yes, embeddings, 3, ""},
		{"lm_head by its logits", yes, yes, nil, head, 3, ""},
		{"embeddings by its ids", yes, yes, nil, embeddings, 0, ""},
		{"is_lm_head false is no lm_head", yes, yes, no, head, 0, "takes neither"},
		{"runs on nothing", no, no, nil, decoder(64), 0, "runs neither"},
		{"prompt only but no decoder", yes, no, nil, embeddings, 0, "takes no past_key_values.0.key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := models.Stage{Name: "s", Filename: "s.onnx", RunOnPrompt: tc.prompt, RunOnTokenGen: tc.gen, IsLMHead: tc.lmHead}
			got, err := stageRole(s, tc.info, n)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("role %d (%v), want %d", got, err, tc.want)
			}
		})
	}
}
