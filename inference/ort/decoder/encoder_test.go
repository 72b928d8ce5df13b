package decoder

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
)

var updateBert = flag.Bool("update-bert-golden", false, "rewrite testdata/bert_golden.json with tools/bertref/bertref.py")

// bertVariants are the BERT-family exports the encoder runs: poolings, prompts, a length cut,
// graphs with and without token_type_ids or a sentence_embedding output, and a reranker.
var bertVariants = []struct {
	name string
	edit func(o *synth.BertOptions)
}{
	{"minilm-mean", func(o *synth.BertOptions) { o.MaxSeqLength = 16 }},
	{"bge-cls-no-types", func(o *synth.BertOptions) {
		o.Pooling, o.NoTokenTypeIDs = "cls", true
		o.Prompts = map[string]string{"query": "Represent this sentence for searching relevant passages: "}
	}},
	{"max-unnormalized", func(o *synth.BertOptions) { o.Pooling, o.Normalize = "max", false }},
	{"e5-sentence-embedding", func(o *synth.BertOptions) {
		o.SentenceEmbedding = true
		o.Prompts = map[string]string{"query": "query: ", "passage": "passage: "}
	}},
	{"reranker", func(o *synth.BertOptions) { o.Reranker = true }},
	// all-MiniLM-L6-v2's own tokenizer.json (its truncation and padding settings ignored).
	{"minilm-real-tokenizer", func(o *synth.BertOptions) { o.Tokenizer = realTokenizer("minilm.json.gz") }},
	{"reranker-real-tokenizer", func(o *synth.BertOptions) { o.Reranker, o.Tokenizer = true, realTokenizer("bert.json.gz") }},
	// bge-reranker's shape: XLM-RoBERTa positions, no token_type_ids, RoBERTa's pair layout.
	{"reranker-roberta", func(o *synth.BertOptions) {
		o.Reranker, o.Roberta, o.Tokenizer = true, true, realTokenizer("roberta.json.gz")
	}},
	{"roberta-cls", func(o *synth.BertOptions) {
		o.Roberta, o.Pooling, o.Tokenizer = true, "cls", realTokenizer("roberta.json.gz")
	}},
}

// realTokenizer is a real tokenizer.json of tokenizer/testdata/real.
func realTokenizer(name string) []byte {
	f, err := os.Open(filepath.Join("..", "..", "..", "tokenizer", "testdata", "real", name))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		panic(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		panic(err)
	}
	return b
}

// bertTexts are embedded as passages, and the first one's question as a query; the
// reranker scores each against the question.
var bertTexts = []string{
	"The access code for the archive vault is 7419.",
	"Bake the bread in a warm oven.",
	"Rain and cold wind: the weather of the city.",
	strings.Repeat("the river bank and the money of the bank ", 6), // longer than the cut
	"Ünïcode Café — [SEP] stays text",
}

const bertQuestion = "What is the vault's access code?"

// bertCase is one row of the golden file: the plain ids of the texts (computed by this
// tokenizer; its exactness is the tokenizer tests' business) and, from tools/bertref, the ids
// fed after BERT's layout and cut, and the vector or score.
type bertCase struct {
	Name    string    `json:"name"`
	IDs     []int     `json:"ids,omitempty"`
	Query   []int     `json:"query,omitempty"`
	Passage []int     `json:"passage,omitempty"`
	Input   []int     `json:"input,omitempty"`
	Vector  []float64 `json:"vector,omitempty"`
	Score   *float64  `json:"score,omitempty"`
}

func bertModel(t testing.TB, name string, edit func(o *synth.BertOptions)) string {
	t.Helper()
	o := synth.BertTiny()
	edit(&o)
	dir := filepath.Join(t.TempDir(), name)
	if err := synth.WriteBert(dir, o); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestEncodersMatchNumpy: each BERT-family export, run in one padded batch, gives every text
// the ids, vector (pooled and normalised as its files say, with its prompts) or reranker score
// that a numpy forward pass from the weights alone gives it, one text at a time.
func TestEncodersMatchNumpy(t *testing.T) {
	initORT(t)
	golden := map[string][]bertCase{}
	if !*updateBert {
		b, err := os.ReadFile("testdata/bert_golden.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &golden); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	opts := EmbedOptions{Library: testenv.ORTLibrary(t), Threads: 1}
	for _, v := range bertVariants {
		t.Run(v.name, func(t *testing.T) {
			dir := bertModel(t, v.name, v.edit)
			var cases []bertCase
			var got [][]float64
			var fed [][]int
			if strings.HasPrefix(v.name, "reranker") {
				c, err := OpenCrossEncoder(dir, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				scores, err := c.Score(ctx, bertQuestion, bertTexts)
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range bertTexts {
					cases = append(cases, bertCase{Name: p, Query: c.tok.Encode(bertQuestion), Passage: c.tok.Encode(p)})
					got = append(got, []float64{scores[i]})
					enc := c.EncodePair(bertQuestion, p)
					fed = append(fed, enc.IDs)
					if n := slices.Index(enc.IDs[1:], enc.IDs[len(enc.IDs)-1]) + 1; c.s.types && !slices.Equal(enc.TypeIDs, append(make([]int, n+1), slices.Repeat([]int{1}, len(enc.IDs)-n-1)...)) {
						t.Errorf("%q: token type ids %v, want 0 through the first [SEP], then 1", p, enc.TypeIDs)
					}
				}
			} else {
				e, err := OpenEncoderEmbedder(dir, "", opts)
				if err != nil {
					t.Fatal(err)
				}
				defer e.Close()
				vecs, err := e.EmbedPassages(ctx, bertTexts, nil)
				if err != nil {
					t.Fatal(err)
				}
				q, err := e.EmbedQuery(ctx, bertQuestion)
				if err != nil {
					t.Fatal(err)
				}
				cfg := e.Config()
				texts := append(append([]string(nil), bertTexts...), bertQuestion)
				for i, text := range texts {
					prompt := cfg.PassagePrompt
					if i == len(bertTexts) {
						prompt = cfg.QueryPrompt
					}
					cases = append(cases, bertCase{Name: prompt + text, IDs: e.tok.Encode(prompt + text)})
					fed = append(fed, e.Encode(prompt+text).IDs)
				}
				for _, x := range append(vecs, q) {
					f := make([]float64, len(x))
					for j := range x {
						f[j] = float64(x[j])
					}
					got = append(got, f)
				}
			}
			if *updateBert {
				golden[v.name] = bertReference(t, dir, cases)
			}
			want := golden[v.name]
			if len(want) != len(cases) {
				t.Fatalf("%d golden cases, %d now: run with -update-bert-golden", len(want), len(cases))
			}
			for i, w := range want {
				if w.Name != cases[i].Name || !slices.Equal(w.IDs, cases[i].IDs) || !slices.Equal(w.Query, cases[i].Query) || !slices.Equal(w.Passage, cases[i].Passage) {
					t.Fatalf("case %d: text or ids differ from the golden file: run with -update-bert-golden", i)
				}
				if !slices.Equal(fed[i], w.Input) {
					t.Errorf("%q: fed %v, the reference feeds %v", w.Name, fed[i], w.Input)
				}
				ref := w.Vector
				if w.Score != nil {
					ref = []float64{*w.Score}
				}
				if len(ref) != len(got[i]) {
					t.Fatalf("%q: %d values, want %d", w.Name, len(got[i]), len(ref))
				}
				// float32 through 2 layers against float64: ~1e-6; a wrong token, position,
				// type, mask or pooling moves values by ~0.1.
				for j := range ref {
					if d := math.Abs(got[i][j] - ref[j]); !(d < 1e-4*max(1, math.Abs(ref[j]))) {
						t.Fatalf("%q: value %d is %g, the reference's %g", w.Name, j, got[i][j], ref[j])
					}
				}
			}
		})
	}
	if *updateBert {
		b, _ := json.MarshalIndent(golden, "", " ")
		if err := os.WriteFile("testdata/bert_golden.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// bertReference runs tools/bertref/bertref.py on cases.
func bertReference(t *testing.T, dir string, cases []bertCase) []bertCase {
	t.Helper()
	in, out := filepath.Join(t.TempDir(), "in.json"), filepath.Join(t.TempDir(), "out.json")
	b, _ := json.Marshal(cases)
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(testenv.Python(t), "../../../tools/bertref/bertref.py", dir, in, out).CombinedOutput(); err != nil {
		t.Fatalf("bertref.py: %v\n%s", err, msg)
	}
	var res []bertCase
	b, err := os.ReadFile(out)
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A cancelled context stops the encoders with its error; a closed one refuses to run.
func TestEncodersHonourContext(t *testing.T) {
	initORT(t)
	opts := EmbedOptions{Library: testenv.ORTLibrary(t), Threads: 1}
	e, err := OpenEncoderEmbedder(bertModel(t, "emb", func(*synth.BertOptions) {}), "", opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenCrossEncoder(bertModel(t, "rr", func(o *synth.BertOptions) { o.Reranker = true }), opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.EmbedPassages(ctx, bertTexts, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("embed: %v, want context.Canceled", err)
	}
	if _, err := c.Score(ctx, bertQuestion, bertTexts); !errors.Is(err, context.Canceled) {
		t.Errorf("score: %v, want context.Canceled", err)
	}
	var calls []int
	if _, err := e.EmbedPassages(context.Background(), slices.Repeat(bertTexts, 8), func(done, total int) { calls = append(calls, done) }); err != nil || len(calls) < 2 || calls[len(calls)-1] != 40 {
		t.Errorf("progress %v, %v: want several batches ending at 40", calls, err)
	}
	e.Close()
	c.Close()
	if _, err := e.EmbedQuery(context.Background(), "x"); err == nil {
		t.Error("a closed embedder ran")
	}
	if _, err := c.Score(context.Background(), "x", []string{"y"}); err == nil {
		t.Error("a closed reranker ran")
	}
}

// EmbedTexts embeds without the passage prompt that EmbedPassages puts first.
func TestEncoderEmbedTextsHasNoPrompt(t *testing.T) {
	initORT(t)
	e, err := OpenEncoderEmbedder(bertModel(t, "e5", func(o *synth.BertOptions) {
		o.Prompts = map[string]string{"query": "query: ", "passage": "passage: "}
	}), "", EmbedOptions{Library: testenv.ORTLibrary(t), Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	raw, err1 := e.EmbedTexts(ctx, []string{"passage: the vault", "the vault"}, nil)
	passages, err2 := e.EmbedPassages(ctx, []string{"the vault"}, nil)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if d0, d1 := maxDiff(raw[0], passages[0]), maxDiff(raw[1], passages[0]); !(d0 < 1e-5) || !(d1 > 1e-3) {
		t.Error("EmbedTexts adds the passage prompt, or EmbedPassages does not")
	}
}

// The decoder embedder refuses a BERT folder (its padding and pooling would give wrong
// vectors), and the encoder refuses a decoder export.
func TestEmbeddersRefuseEachOthersModels(t *testing.T) {
	initORT(t)
	opts := EmbedOptions{Library: testenv.ORTLibrary(t), Threads: 1}
	if _, err := OpenEmbedder(bertModel(t, "bert", func(*synth.BertOptions) {}), opts); err == nil || !strings.Contains(err.Error(), "BERT-family encoder") {
		t.Errorf("OpenEmbedder(BERT) = %v", err)
	}
	if _, err := OpenEncoderEmbedder(tinyEmbedding(t), "", opts); err == nil || !strings.Contains(err.Error(), "not a BERT-family encoder") {
		t.Errorf("OpenEncoderEmbedder(Qwen3-Embedding) = %v", err)
	}
}
