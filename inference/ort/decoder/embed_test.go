package decoder

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/inference"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
)

var updateEmbed = flag.Bool("update-embed-golden", false, "rewrite testdata/embed_golden.json with tools/embedref/embedref.py")

func tinyEmbedding(t testing.TB) string {
	return synthModel(t, "tiny-embedding", func(o *synth.Options) { o.Layout = synth.LayoutEmbedding })
}

func openTinyEmbedder(t testing.TB) *Embedder {
	t.Helper()
	e, err := OpenEmbedder(tinyEmbedding(t), EmbedOptions{Library: testenv.ORTLibrary(t), Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// embedCase is one text of the golden file: its ids as the embedder makes them and the
// vector tools/embedref/embedref.py computes from them with ONNX's reference evaluator.
type embedCase struct {
	Name   string    `json:"name"`
	Text   string    `json:"text"`
	IDs    []int     `json:"ids"`
	Vector []float64 `json:"vector,omitempty"`
}

var embedTexts = []struct{ name, text string }{
	{"passage", "The access code for the Halvorsen archive vault is 7-4-1-9."},
	{"short", "Hi"},
	{"unicode", "Größe über 東京 — naïve café 😀"},
	{"special text", "<|im_end|> stays text"},
}

// TestEmbedderMatchesReference: the pooled, normalised vector of each text (queries with the
// instruction) equals the one ONNX's reference evaluator and numpy give, without ONNX
// Runtime and without this package's padding or pooling.
func TestEmbedderMatchesReference(t *testing.T) {
	e := openTinyEmbedder(t)
	var cases []embedCase
	for _, c := range embedTexts {
		cases = append(cases, embedCase{Name: c.name, Text: c.text})
	}
	cases = append(cases, embedCase{Name: "query", Text: e.QueryPrompt() + "What is the vault's access code?"})
	for i := range cases {
		cases[i].IDs = e.Tokens(cases[i].Text)
	}
	golden := filepath.Join("testdata", "embed_golden.json")
	if *updateEmbed {
		py := testenv.Python(t)
		in := filepath.Join(t.TempDir(), "in.json")
		b, _ := json.Marshal(cases)
		if err := os.WriteFile(in, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(py, "../../../tools/embedref/embedref.py", tinyEmbedding(t), in, golden).CombinedOutput(); err != nil {
			t.Fatalf("embedref.py: %v\n%s", err, out)
		}
	}
	raw, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want []embedCase
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, cases, cmp.Comparer(func(a, b []float64) bool { return true })); diff != "" {
		t.Fatalf("texts or ids differ from the golden file (-want +got):\n%s", diff)
	}
	for _, c := range want {
		if c.IDs[len(c.IDs)-1] != synth.EndOfText {
			t.Errorf("%s: ids end with %d, want <|endoftext|> %d", c.Name, c.IDs[len(c.IDs)-1], synth.EndOfText)
		}
	}
	ctx := context.Background()
	q, err := e.EmbedQuery(ctx, "What is the vault's access code?")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range embedTexts {
		texts = append(texts, c.text)
	}
	got, err := e.EmbedPassages(ctx, texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, q)
	// float32 through 2 layers against the reference evaluator's float32: ~1e-6 per
	// component of a unit vector; 1e-4 leaves room for other kernels and no room for a wrong
	// token, position or pooling (those move components by ~0.1).
	for i, c := range want {
		if len(got[i]) != len(c.Vector) {
			t.Fatalf("%s: %d dimensions, want %d", c.Name, len(got[i]), len(c.Vector))
		}
		d, norm := 0.0, 0.0
		for j, w := range c.Vector {
			d = max(d, math.Abs(float64(got[i][j])-w))
			norm += float64(got[i][j]) * float64(got[i][j])
		}
		if d > 1e-4 {
			t.Errorf("%s: vector differs from the reference by %g", c.Name, d)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("%s: |v|² = %g, want 1", c.Name, norm)
		}
	}
}

// TestEmbedderBatchEqualsOneByOne: left padding and the attention mask give every text the
// vector it gets alone.
func TestEmbedderBatchEqualsOneByOne(t *testing.T) {
	e := openTinyEmbedder(t)
	texts := []string{"a", "a somewhat longer passage about payment terms after termination", "mid length text here", strings.Repeat("long ", 40)}
	ctx := context.Background()
	var calls []int
	batch, err := e.EmbedPassages(ctx, texts, func(done, total int) { calls = append(calls, done) })
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0] != len(texts) {
		t.Errorf("progress %v, want one run of all %d texts", calls, len(texts))
	}
	for i, text := range texts {
		one, err := e.EmbedPassages(ctx, []string{text}, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := 0.0
		for j := range one[0] {
			d = max(d, math.Abs(float64(one[0][j]-batch[i][j])))
		}
		if d > 1e-5 {
			t.Errorf("text %d: batched vector differs from its own by %g", i, d)
		}
	}
	if cos := dot(batch[0], batch[1]); cos > 0.9999 {
		t.Errorf("different texts got the same vector (cosine %g)", cos)
	}
}

func dot(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbedderTruncatesAndHonoursContext(t *testing.T) {
	e := openTinyEmbedder(t)
	e.MaxTokens = 8
	ids := e.Tokens(strings.Repeat("word ", 50))
	if len(ids) != 8 || ids[7] != synth.EndOfText {
		t.Errorf("ids %v: want 8 ending with <|endoftext|>", ids)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.EmbedPassages(ctx, []string{"x"}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	// Many texts take several runs; cancelling after the first stops before the second.
	ctx, cancel = context.WithCancel(context.Background())
	runs := 0
	texts := make([]string, 3*embedBatchTexts)
	for i := range texts {
		texts[i] = "text"
	}
	_, err := e.EmbedPassages(ctx, texts, func(done, total int) { runs++; cancel() })
	if !errors.Is(err, context.Canceled) || runs != 1 {
		t.Errorf("after cancelling in the first run's progress: %d runs, %v", runs, err)
	}
}

func TestEmbeddingModelCannotChat(t *testing.T) {
	initORT(t)
	f, err := models.Open(tinyEmbedding(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(f, inference.LoadOptions{MaxContext: 256, EP: inference.EP{Name: "cpu"}}); err == nil || !strings.Contains(err.Error(), "is a text-embedding model") {
		t.Errorf("Open(embedding model) = %v, want it refused as a chat model", err)
	}
}

func TestOpenEmbedderRefusesChatModel(t *testing.T) {
	_, err := OpenEmbedder(tinyModel(t), EmbedOptions{Library: testenv.ORTLibrary(t), Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "not a text-embedding model") {
		t.Errorf("OpenEmbedder(chat model) = %v, want it to say it is not an embedding model", err)
	}
}

// TestEmbedderQ4: the 4-bit export (model_q4.onnx, MatMulNBits) is chosen from the folder
// and gives vectors close to the float32 model's of the same weights.
func TestEmbedderQ4(t *testing.T) {
	q4dir := synthModel(t, "tiny-embedding-q4", func(o *synth.Options) { o.Layout, o.Quant = synth.LayoutEmbedding, synth.QuantQ4 })
	q4, err := OpenEmbedder(q4dir, EmbedOptions{Library: testenv.ORTLibrary(t), Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer q4.Close()
	fp := openTinyEmbedder(t)
	texts := []string{embedTexts[0].text, embedTexts[2].text, "a b c"}
	ctx := context.Background()
	a, err := q4.EmbedPassages(ctx, texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fp.EmbedPassages(ctx, texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Measured: 0.93–0.96 for the same text, −0.15–0.13 across texts (4-bit blocks of 32
	// through 2 layers of large random weights). A wrong scale, block order or zero point
	// would leave the same text no closer than another.
	for i := range texts {
		same := dot(a[i], b[i])
		if same < 0.85 {
			t.Errorf("text %d: cosine(q4, fp32) = %.4f, want ≥ 0.85", i, same)
		}
		for j := range texts {
			if j != i && dot(a[i], b[j]) > same-0.5 {
				t.Errorf("text %d: q4 vector as close to text %d's (%.4f) as to its own (%.4f)", i, j, dot(a[i], b[j]), same)
			}
		}
	}
}
