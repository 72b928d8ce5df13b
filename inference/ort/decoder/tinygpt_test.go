package decoder

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"edgechat/inference"
	"edgechat/inference/sample"
	"edgechat/internal/testkit/tinygpt"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/reply"
)

// tinyGPTGolden is testdata/tinygpt_golden.json (tools/tinygpt/gen.sh): numpy's greedy
// answers of the original TinyGPT-SLM checkpoint, read from its C++ source.
type tinyGPTGolden []struct {
	Question string    `json:"question"`
	Prompt   []int     `json:"prompt"`
	Tokens   []int     `json:"tokens"`
	Text     string    `json:"text"`
	Logits   []float32 `json:"logits"`
}

func readTinyGPTGolden(t *testing.T) tinyGPTGolden {
	t.Helper()
	b, err := os.ReadFile("testdata/tinygpt_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g tinyGPTGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// tinyGPTModel converts (once) the real TinyGPT-SLM checkpoint into a Hugging Face folder.
func tinyGPTModel(t *testing.T) string {
	t.Helper()
	initORT(t)
	modelMu.Lock()
	defer modelMu.Unlock()
	const name = "tinygpt-slm"
	if p, ok := modelPaths[name]; ok {
		return p
	}
	c, err := tinygpt.Parse(tinygpt.Original())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(modelRoot, name)
	if err := tinygpt.Write(p, c); err != nil {
		t.Fatal(err)
	}
	modelPaths[name] = p
	return p
}

// The converted real model, as published and through its optimized copy, gives the greedy
// tokens the numpy reference computes from the original C++ checkpoint, question by question
// (an answer ends at <eos> or <pad>, or at the 22nd position), and its logits after each
// prompt.
func TestTinyGPTMatchesOriginal(t *testing.T) {
	golden := readTinyGPTGolden(t)
	dir := tinyGPTModel(t)
	for _, run := range []struct {
		name  string
		cache bool
	}{{"published", false}, {"optimized", true}} {
		t.Run(run.name, func(t *testing.T) {
			cache := ""
			if run.cache {
				cache = t.TempDir()
			}
			m, err := loadModel(dir, inference.LoadOptions{EP: cpu1, MaxContext: 4096, GraphCache: cache})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			d := m.Decoder()
			if d.Capacity() != 22 {
				t.Fatalf("capacity %d, want the model's 22 positions", d.Capacity())
			}
			var compared int
			var worst float64
			for _, q := range golden {
				d.Truncate(0)
				logits, err := d.Forward(context.Background(), q.Prompt)
				if err != nil {
					t.Fatal(err)
				}
				worst = max(worst, maxDiff(logits, q.Logits))
				var got []int
				for {
					n := sample.Argmax(logits)
					got = append(got, n)
					if n == 1 || n == 2 || len(q.Prompt)+len(got) == 22 {
						break
					}
					if logits, err = d.Forward(context.Background(), []int{n}); err != nil {
						t.Fatal(err)
					}
				}
				if !slices.Equal(got, q.Tokens) {
					t.Errorf("%q: greedy tokens %v, numpy's %v", q.Question, got, q.Tokens)
				}
				compared += len(got)
			}
			// float32 against float64 through 4 layers: logits of magnitude ~20 agree to ~1e-5.
			if !(worst < 1e-3) {
				t.Errorf("logits after the prompts differ from numpy's by up to %g", worst)
			}
			t.Logf("%d questions, %d greedy tokens equal; logits within %.2g", len(golden), compared, worst)
			if run.cache {
				f, _ := models.Open(dir, "")
				if why, ok := optimize.Fallback(f.Model, cache); ok {
					t.Errorf("the optimized copy fell back to the published graph: %s", why)
				}
			}
			if compared < 40 {
				t.Errorf("only %d tokens compared", compared)
			}
		})
	}
}

// A chat request through the engine renders the model's template (<sos> question <sep>),
// answers with the original's greedy text, words joined by spaces, and stops at <eos>.
func TestTinyGPTChatThroughEngine(t *testing.T) {
	golden := readTinyGPTGolden(t)
	e := newTestEngine(t, tinyGPTModel(t), nil)
	for _, q := range golden[:3] {
		evs, sum := collect(t, e, context.Background(), reply.Request{
			Messages: []reply.Message{{Role: "user", Content: q.Question}},
			Sampling: reply.Sampling{Temperature: ptr(0.0)}, NoLookup: true})
		if sum.Err != nil {
			t.Fatal(sum.Err)
		}
		if sum.PromptTokens != len(q.Prompt) {
			t.Errorf("%q: %d prompt tokens, want %d (%v)", q.Question, sum.PromptTokens, len(q.Prompt), q.Prompt)
		}
		if text, _ := replyText(evs); text != q.Text || sum.FinishReason != reply.FinishStop {
			t.Errorf("%q: reply %q (%s), want numpy's %q, stopped at <eos>", q.Question, text, sum.FinishReason, q.Text)
		}
	}
}
