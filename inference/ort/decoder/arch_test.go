package decoder

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/inference/sample"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
	"edgechat/reply"
)

// archGolden is testdata/arch_golden.json (tools/archref/gen.sh): per family, the greedy
// tokens and the prompt's last logits of a numpy forward pass from the weights alone.
type archGolden struct {
	Prompt   []int `json:"prompt"`
	Families map[string]struct {
		Tokens []int     `json:"tokens"`
		Logits []float32 `json:"logits"`
	} `json:"families"`
	GPT2 struct {
		Prompt []int  `json:"prompt"`
		Tokens []int  `json:"tokens"`
		Text   string `json:"text"`
	} `json:"gpt2_vocab50257"`
}

func readArchGolden(t *testing.T) archGolden {
	t.Helper()
	b, err := os.ReadFile("testdata/arch_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden archGolden
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	return golden
}

// familyModel writes (once) a family model with edits on its tiny shape.
func familyModel(t *testing.T, name string, f synth.Family, edit func(o *synth.Options)) string {
	t.Helper()
	initORT(t)
	tok := testenv.SharedModel(t, "stories260K") // its tokenizer has 512 tokens, as the families' vocabulary
	return cachedModel(t, name, synth.FamilyTiny(f), tok, edit)
}

// archVariants are the exports of each family the decoders must run: position_ids present or
// not, both KV names, merged decoders.
var archVariants = []struct {
	name   string
	family synth.Family
	edit   func(o *synth.Options)
}{
	{"gpt2", synth.FamilyGPT2, nil},
	{"gpt2-no-position-ids", synth.FamilyGPT2, func(o *synth.Options) { o.NoPositionIDs = true }},
	{"gpt_neo-past-dotted", synth.FamilyGPTNeo, func(o *synth.Options) { o.PastNames = synth.PastDotted }},
	{"gpt_neox", synth.FamilyGPTNeoX, nil},
	{"phi", synth.FamilyPhi, nil},
	{"phi-no-position-ids", synth.FamilyPhi, func(o *synth.Options) { o.NoPositionIDs = true }},
	{"opt", synth.FamilyOPT, nil},
	{"gpt2-merged", synth.FamilyGPT2, func(o *synth.Options) { o.Merged = true }},
	{"opt-merged", synth.FamilyOPT, func(o *synth.Options) { o.Merged = true }},
	{"gpt_neox-merged-no-position-ids", synth.FamilyGPTNeoX, func(o *synth.Options) { o.Merged, o.NoPositionIDs = true, true }},
}

// Each family's export, as published and through its optimized copy, and with the prompt
// fed in chunks of 3 (past and new rows together), gives the numpy reference's greedy tokens
// and its logits after the prompt.
func TestArchitecturesMatchNumpy(t *testing.T) {
	golden := readArchGolden(t)
	for _, v := range archVariants {
		want, ok := golden.Families[string(v.family)]
		if !ok {
			t.Fatalf("no golden for %s: run tools/archref/gen.sh", v.family)
		}
		requireVaried(t, want.Tokens)
		dir := familyModel(t, "arch-"+v.name, v.family, v.edit)
		for _, run := range []struct {
			name   string
			cache  bool
			runLen int
		}{{"published", false, 0}, {"optimized", true, 0}, {"chunks of 3", false, 3}} {
			t.Run(v.name+"/"+run.name, func(t *testing.T) {
				cache := ""
				if run.cache {
					cache = t.TempDir()
				}
				d := openFolder(t, dir, cache)
				if run.runLen > 0 {
					dd, ok := d.(*dynamicDecoder)
					if !ok {
						t.Fatalf("decoder %T, want the dynamic decoder", d)
					}
					dd.runLen = run.runLen
				}
				logits, err := d.Forward(context.Background(), golden.Prompt)
				if err != nil {
					t.Fatal(err)
				}
				// float32 against float64 through 2 layers: logits of magnitude ~30 agree to ~1e-5.
				if diff := maxDiff(logits, want.Logits); !(diff < 2e-3) {
					t.Fatalf("logits after the prompt differ from numpy's by %g", diff)
				}
				got := []int{sample.Argmax(logits)}
				for len(got) < len(want.Tokens) {
					if logits, err = d.Forward(context.Background(), got[len(got)-1:]); err != nil {
						t.Fatal(err)
					}
					got = append(got, sample.Argmax(logits))
				}
				if !slices.Equal(got, want.Tokens) {
					t.Fatalf("greedy tokens %v, numpy's %v", got, want.Tokens)
				}
				if run.cache {
					f, _ := models.Open(dir, "")
					if why, ok := optimize.Fallback(f.Model, cache); ok {
						t.Errorf("the optimized copy fell back to the published graph: %s", why)
					}
					copies, _ := filepath.Glob(filepath.Join(cache, "optimized", "*", filepath.Base(f.Model)))
					for _, c := range copies {
						info, err := proto.ReadInfo(c)
						if err != nil {
							t.Fatal(err)
						}
						t.Logf("copy %s: logits rows %q, ops %v", filepath.Base(filepath.Dir(c)), info.Metadata[optimize.MetaLogitsRows], info.Ops)
						if info.Ops["If"] > 0 {
							t.Errorf("the copy of a merged decoder still has its If: %v", info.Ops)
						}
					}
				}
			})
		}
	}
}

// A GPT-2 export's context is its config's n_positions (its learned position table's rows):
// the model holds that many tokens, decodes up to the last row and refuses the next token
// with a message instead of an out-of-range Gather.
func TestLearnedPositionsBoundTheContext(t *testing.T) {
	dir := familyModel(t, "arch-gpt2", synth.FamilyGPT2, nil)
	m, err := loadModel(dir, inference.LoadOptions{EP: cpu1, MaxContext: 4096})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	d := m.Decoder()
	if d.Capacity() != 256 {
		t.Fatalf("capacity %d, want n_positions 256", d.Capacity())
	}
	if _, err := d.Forward(context.Background(), vocabIDs(256, 1, 512)); err != nil {
		t.Fatalf("256 tokens: %v", err)
	}
	if _, err := d.Forward(context.Background(), []int{5}); err == nil || !strings.Contains(err.Error(), "context holds 256") {
		t.Fatalf("token 257: err = %v, want the context's limit", err)
	}
}

// A GPT-2 folder at GPT-2's real vocabulary, with GPT-2's own tokenizer.json, answers a raw
// prompt through the engine with the numpy reference's greedy text (decoded from the
// vocabulary alone), and a reply whose next token is <|endoftext|> stops there.
func TestGPT2FolderThroughEngine(t *testing.T) {
	golden := readArchGolden(t)
	dir := familyModel(t, "arch-gpt2-50257", synth.FamilyGPT2, func(o *synth.Options) {
		o.Vocab, o.MaxPositions, o.TokenizerDir = 50257, 1024, ""
	})
	tok := filepath.Join(dir, "tokenizer.json")
	if _, err := os.Stat(tok); err != nil {
		writeGunzipped(t, "../../../tokenizer/testdata/real/gpt2.json.gz", tok)
	}
	e := newTestEngine(t, dir, nil)
	const prompt = "Once upon a time there was a"
	evs, sum := collect(t, e, context.Background(), reply.Request{Prompt: &reply.Prompt{Text: prompt}, MaxTokens: len(golden.GPT2.Tokens), Sampling: reply.Sampling{Temperature: ptr(0.0)}})
	if sum.Err != nil {
		t.Fatal(sum.Err)
	}
	if sum.PromptTokens != len(golden.GPT2.Prompt) {
		t.Errorf("%d prompt tokens, want GPT-2's %d (%v)", sum.PromptTokens, len(golden.GPT2.Prompt), golden.GPT2.Prompt)
	}
	if text, _ := replyText(evs); text != golden.GPT2.Text || sum.FinishReason != reply.FinishLength {
		t.Fatalf("reply %q (%s), want numpy's %q", text, sum.FinishReason, golden.GPT2.Text)
	}
	evs, sum = collect(t, e, context.Background(), reply.Request{Prompt: &reply.Prompt{Text: prompt}, MaxTokens: 8,
		Sampling: reply.Sampling{Temperature: ptr(0.0), LogitBias: map[int]float64{50256: 100}}})
	if text, _ := replyText(evs); sum.Err != nil || sum.FinishReason != reply.FinishStop || text != "" {
		t.Fatalf("with <|endoftext|> next: reply %q, %s, %v; want an empty reply stopped there", text, sum.FinishReason, sum.Err)
	}
}

// writeGunzipped writes the gzip file src, uncompressed, to dst.
func writeGunzipped(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.WriteFile(dst, testenv.Gunzip(t, src), 0o644); err != nil {
		t.Fatal(err)
	}
}
