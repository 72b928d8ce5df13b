package decoder

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"edgechat/inference"
	"edgechat/inference/sample"
	"edgechat/models"
	"edgechat/reply"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
)

// benchModel is the Qwen3-0.6B-shaped synthetic model (4 layers, weights in
// onnx/model.onnx_data as in the full-size export), written once into the temporary folder
// because it is large (~870 MB) and slow to write.
func benchModel(b *testing.B) string {
	b.Helper()
	initORT(b)
	dir := filepath.Join(os.TempDir(), "edgechat-bench-qwen3shape")
	if _, err := os.Stat(filepath.Join(dir, "onnx", "model.onnx_data")); err == nil {
		return dir
	}
	os.RemoveAll(dir) // an older, single-file build
	o := synth.Qwen3Shape()
	o.TokenizerDir = testenv.TokenizerDir(b, "qwen3")
	if err := synth.Write(dir, o); err != nil {
		b.Fatal(err)
	}
	return dir
}

const benchDecodeTokens = 64

// engineDecoder returns a function that generates one greedy reply with Generate (sampling,
// detokenizing, thinking parser, events) and returns its decode time and token count.
func engineDecoder(b *testing.B) func() (time.Duration, int) {
	e := newTestEngine(b, benchModel(b), func(rc *inference.RouteConfig) { rc.MaxContext = 1024 })
	req := greedy("Tell me a story about a lighthouse keeper.", benchDecodeTokens)
	collect(b, e, context.Background(), req) // load
	return func() (time.Duration, int) {
		_, s := collect(b, e, context.Background(), req)
		if s.GeneratedTokens < 2 {
			b.Fatalf("generated %d tokens (%s)", s.GeneratedTokens, s.FinishReason)
		}
		return time.Duration(float64(s.GeneratedTokens-1) / s.DecodeTPS * float64(time.Second)), s.GeneratedTokens - 1
	}
}

// BenchmarkDecodeOverhead compares decode speed of Generate with a bare loop of session.Run
// calls on the same model and thread count (ONNX Runtime allocating outputs, greedy argmax).
// The two alternate within each iteration, so load on the machine hits both alike; the
// "overhead-%" metric is the engine's loss against the bare loop.
func BenchmarkDecodeOverhead(b *testing.B) {
	engine, bare := engineDecoder(b), bareDecoder(b)
	var te, tb time.Duration
	var ne, nb int
	for b.Loop() {
		d, n := engine()
		te, ne = te+d, ne+n
		d, n = bare()
		tb, nb = tb+d, nb+n
	}
	perE, perB := float64(te.Nanoseconds())/float64(ne), float64(tb.Nanoseconds())/float64(nb)
	b.ReportMetric(1e9/perE, "engine-tokens/s")
	b.ReportMetric(1e9/perB, "bare-tokens/s")
	b.ReportMetric(100*(perE-perB)/perB, "overhead-%")
}

// bareDecoder returns a function that runs the bare session.Run loop once.
func bareDecoder(b *testing.B) func() (time.Duration, int) {
	dir := benchModel(b)
	m, err := loadModel(dir, inference.LoadOptions{EP: inference.EP{Name: "cpu"}, MaxContext: 1024})
	if err != nil {
		b.Fatal(err)
	}
	prompt, err := m.PromptIDs([]reply.Message{{Role: "user", Content: "Tell me a story about a lighthouse keeper."}}, true)
	if err != nil {
		b.Fatal(err)
	}
	io := m.Decoder().(*dynamicDecoder).io
	m.Close()
	in := []string{io.InputIDs, io.AttentionMask, io.PositionIDs}
	out := []string{io.Logits}
	for i := range io.Past {
		in = append(in, io.Past[i].Key, io.Past[i].Value)
		out = append(out, io.Present[i].Key, io.Present[i].Value)
	}
	opts, _ := newSessionOptions(inference.EP{Name: "cpu"})
	s, err := newSession(filepath.Join(dir, "onnx", "model.onnx"), in, out, opts)
	opts.Destroy()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { destroySession(s) })
	run := func(ids []int64, past []ort.Value, pos int) (int, []ort.Value) {
		L := len(ids)
		inputs := make([]ort.Value, 3, 3+len(past))
		inputs[0], _ = ort.NewTensor(ort.NewShape(1, int64(L)), ids)
		mask := make([]int64, pos+L)
		for i := range mask {
			mask[i] = 1
		}
		inputs[1], _ = ort.NewTensor(ort.NewShape(1, int64(pos+L)), mask)
		p := make([]int64, L)
		for i := range p {
			p[i] = int64(pos + i)
		}
		inputs[2], _ = ort.NewTensor(ort.NewShape(1, int64(L)), p)
		if past == nil {
			for range 2 * len(io.Past) {
				t, _ := ort.NewEmptyTensor[float32](ort.NewShape(1, int64(io.KVHeads), 0, int64(io.HeadDim)))
				past = append(past, t)
			}
		}
		inputs = append(inputs, past...)
		outputs := make([]ort.Value, len(out))
		if err := s.Run(inputs, outputs); err != nil {
			b.Fatal(err)
		}
		for _, v := range inputs {
			v.Destroy()
		}
		logits := outputs[0].(*ort.Tensor[float32]).GetData()
		next := sample.Argmax(logits[(L-1)*io.Vocab:])
		outputs[0].Destroy()
		return next, outputs[1:]
	}
	ids := make([]int64, len(prompt))
	for i, id := range prompt {
		ids[i] = int64(id)
	}
	return func() (time.Duration, int) {
		next, past := run(ids, nil, 0)
		start := time.Now()
		for i := range benchDecodeTokens - 1 {
			next, past = run([]int64{int64(next)}, past, len(ids)+i)
		}
		d := time.Since(start)
		for _, v := range past {
			v.Destroy()
		}
		return d, benchDecodeTokens - 1
	}
}

// BenchmarkTTFT512: time to first token for a 512-token prompt, no cache reuse.
func BenchmarkTTFT512(b *testing.B) {
	e := newTestEngine(b, benchModel(b), func(rc *inference.RouteConfig) { rc.MaxContext = 1024 })
	m, err := loadModel(benchModel(b), inference.LoadOptions{EP: inference.EP{Name: "cpu"}, MaxContext: 1024})
	if err != nil {
		b.Fatal(err)
	}
	m.Close()
	text := ""
	for len(m.Tokenizer.Encode(text)) < 500 {
		text += "The lighthouse keeper counted the ships that passed in the night. "
	}
	collect(b, e, context.Background(), greedy("warm up", 1))
	var ttft time.Duration
	n := 0
	for b.Loop() {
		req := greedy(text, 1)
		req.Messages[0].Content += string(rune('a' + n%26)) // defeat prefix reuse from the previous run
		req.Messages[0].Content = string(rune('A'+n%26)) + req.Messages[0].Content
		_, s := collect(b, e, context.Background(), req)
		ttft += s.TTFT
		n++
	}
	b.ReportMetric(float64(ttft.Milliseconds())/float64(n), "ms/ttft")
}

// BenchmarkFollowUpTTFT measures turn 10 of a chat: TTFT with the KV cache reused, without
// reuse, and of the new user message prefilled alone. Metrics: the three TTFTs and the ratios
// the targets name (reuse/alone ≤ 1.3, noreuse/reuse ≥ 5), plus the cache's memory.
func BenchmarkFollowUpTTFT(b *testing.B) {
	model := benchModel(b)
	var reuseDec inference.Decoder // the reuse engine's decoder, for its cache's size
	open := func(f *models.Folder, o inference.LoadOptions) (inference.Decoder, error) {
		d, err := Open(f, o)
		reuseDec = d
		return d, err
	}
	reuse, err := inference.New(inference.Config{Open: open, Routes: []inference.RouteConfig{{Name: "cpu", Model: model, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu"}, MaxContext: 2048}}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { reuse.Close() })
	noReuse := newTestEngine(b, model, func(rc *inference.RouteConfig) { rc.MaxContext = 2048; rc.NoReuse = true })
	msgs := []reply.Message{{Role: "system", Content: "You are a concise assistant."}}
	for i := range 9 {
		msgs = append(msgs,
			reply.Message{Role: "user", Content: fmt.Sprintf("Question %d: how do lighthouses warn ships about rocks near the coast at night?", i+1)},
			reply.Message{Role: "assistant", Content: strings.Repeat(fmt.Sprintf("Answer %d explains the beam, the lens and the light pattern. ", i+1), 4)})
	}
	turn9 := reply.Request{Messages: msgs[:len(msgs)-1], MaxTokens: 32, Sampling: reply.Sampling{Temperature: ptr(0.0)}, ConversationID: "bench"}
	last := reply.Message{Role: "user", Content: "Question 10: and what do the keepers do during a storm when the power fails?"}
	alone := reply.Request{Messages: []reply.Message{last}, MaxTokens: 1, Sampling: reply.Sampling{Temperature: ptr(0.0)}, ConversationID: "alone"}
	var tReuse, tNo, tAlone time.Duration
	var prompt, reused int
	var kv int64
	for b.Loop() {
		evs, _ := collect(b, reuse, context.Background(), turn9)
		// The reply the model gave becomes the assistant turn, as in the app; the person
		// then reads it and types (settle: the engine prefills the history meanwhile).
		answer, thinking := replyText(evs)
		history := append(slices.Clone(msgs[:len(msgs)-1]), reply.Message{Role: "assistant", Content: answer, Thinking: thinking})
		turn10 := reply.Request{Messages: append(history, last), MaxTokens: 1, Sampling: reply.Sampling{Temperature: ptr(0.0)}, ConversationID: "bench"}
		reuse.Settle()
		_, s := collect(b, reuse, context.Background(), turn10)
		tReuse += s.TTFT
		prompt, reused = s.PromptTokens, s.ReusedTokens
		_, s = collect(b, noReuse, context.Background(), turn10)
		tNo += s.TTFT
		_, s = collect(b, noReuse, context.Background(), alone)
		tAlone += s.TTFT
		kv = reuseDec.KVBytes()
	}
	n := float64(b.N)
	b.ReportMetric(tReuse.Seconds()*1000/n, "ms-reuse")
	b.ReportMetric(tNo.Seconds()*1000/n, "ms-noreuse")
	b.ReportMetric(tAlone.Seconds()*1000/n, "ms-alone")
	b.ReportMetric(float64(tReuse)/float64(tAlone), "reuse/alone")
	b.ReportMetric(float64(tNo)/float64(tReuse), "noreuse/reuse")
	b.ReportMetric(float64(prompt), "prompt-tokens")
	b.ReportMetric(float64(reused), "reused-tokens")
	b.ReportMetric(float64(kv)/(1<<20), "kv-MiB")
}
