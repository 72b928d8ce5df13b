package documents_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/documents"
	"edgechat/inference/ort/decoder"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/reply"
	"edgechat/tokenizer"
)

var updateRerank = flag.Bool("update-rerank-golden", false, "rewrite testdata/rerank_golden.json with tools/bertref/bertref.py")

// fakeReranker scores with a function.
type fakeReranker struct {
	score func(q, p string) (float64, error)
	calls int
}

func (f *fakeReranker) Score(_ context.Context, q string, ps []string) ([]float64, error) {
	f.calls++
	out := make([]float64, len(ps))
	for i, p := range ps {
		s, err := f.score(q, p)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

func (f *fakeReranker) ModelName() string { return "fake-reranker" }

// rerankSections are one section each of rerankDoc; every one shares "code" with
// rerankQuestion, so all are candidates.
var rerankSections = []string{
	"The vault code is written on the archive door.",
	"The bank keeps the money and the vault code.",
	"Rain on the river: the weather code of the city is cold.",
	"Bake the bread in the oven, code seven, then eat the cake.",
	"The cat and the dog eat fish from the river, code red.",
	"Music in the train station: a piano, a song and a code.",
}

const rerankQuestion = "what is the code of the vault?"

func rerankDoc(t *testing.T) string {
	var b strings.Builder
	for i, s := range rerankSections {
		b.WriteString("# Part " + string(rune('A'+i)) + "\n\n" + s + "\n\n")
	}
	return writeFile(t, t.TempDir(), "notes.md", []byte(b.String()))
}

// onePassage is a budget that fits one section of rerankDoc (counted as 10 tokens each).
func onePassage() documents.Budget {
	return documents.Budget{Context: 8192, PromptLimit: 96 + 2*(10+8) + 40, Count: func(string) int { return 10 }}
}

func sectionOf(t *testing.T, srcs []reply.Source) string {
	t.Helper()
	if len(srcs) != 1 {
		t.Fatalf("%d sources, want the one that fits: %+v", len(srcs), srcs)
	}
	for _, s := range rerankSections {
		if strings.Contains(srcs[0].Text, s) {
			return s
		}
	}
	t.Fatalf("source %q is none of the sections", srcs[0].Text)
	return ""
}

// A reranker decides which candidate fills the prompt; one that fails leaves the keyword
// ranking and says so.
func TestRerankerChoosesThePassage(t *testing.T) {
	req := question(rerankQuestion, attach(rerankDoc(t)))
	plain := &documents.Engine{Library: documents.NewLibrary(), Budget: onePassage}
	p, err := plain.Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := sectionOf(t, p.Sources)

	lib := documents.NewLibrary()
	defer lib.Close()
	fake := &fakeReranker{score: func(_, p string) (float64, error) {
		if strings.Contains(p, "piano") {
			return 5, nil
		}
		return 0, nil
	}}
	lib.SetReranker(func() (documents.Reranker, error) { return fake, nil })
	var statuses []string
	p, err = (&documents.Engine{Library: lib, Budget: onePassage}).Prepare(context.Background(), req, func(s string) { statuses = append(statuses, s) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(statuses, "Re-ranking 6 passages with fake-reranker…") {
		t.Errorf("statuses %q: want the re-ranking's", statuses)
	}
	if got := sectionOf(t, p.Sources); !strings.Contains(got, "piano") || first == got {
		t.Errorf("re-ranked: %q (keywords chose %q)", got, first)
	}
	if p.Ranking != "Passages ranked by keywords, re-ranked by fake-reranker" || len(p.Problems) != 0 {
		t.Errorf("ranking %q, problems %q", p.Ranking, p.Problems)
	}
	// The reply's summary carries the ranking with the sources.
	ch, err := (&documents.Engine{Next: &fakeGen{}, Library: lib, Budget: onePassage}).Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if c := reply.Collect(context.Background(), ch); c.Summary.Ranking != p.Ranking || len(c.Summary.Sources) != 1 {
		t.Errorf("summary ranking %q, %d sources", c.Summary.Ranking, len(c.Summary.Sources))
	}

	fake.score = func(_, _ string) (float64, error) { return 0, errors.New("out of memory") }
	p, err = (&documents.Engine{Library: lib, Budget: onePassage}).Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := sectionOf(t, p.Sources); got != first || p.Ranking != "Passages ranked by keywords" ||
		len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "out of memory") {
		t.Errorf("failed reranker: %q, ranking %q, problems %q", got, p.Ranking, p.Problems)
	}

	lib.SetReranker(func() (documents.Reranker, error) { return nil, errors.New("no such folder") })
	p, _ = (&documents.Engine{Library: lib, Budget: onePassage}).Prepare(context.Background(), req, nil)
	if got := sectionOf(t, p.Sources); got != first || len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "no such folder") {
		t.Errorf("unopenable reranker: %q, problems %q", got, p.Problems)
	}
}

// TestCrossEncoderReranks: a generated ms-marco-shaped cross-encoder, run by ONNX Runtime,
// puts in the prompt the section a numpy forward pass (tools/bertref) scores highest — not
// the one keywords put first.
func TestCrossEncoderReranks(t *testing.T) {
	o := synth.BertTiny()
	o.Reranker = true
	dir := filepath.Join(t.TempDir(), "ms-marco-tiny")
	if err := synth.WriteBert(dir, o); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "rerank_golden.json")
	if *updateRerank {
		writeRerankGolden(t, dir, golden)
	}
	var ref []struct {
		Name  string  `json:"name"`
		Score float64 `json:"score"`
	}
	b, err := os.ReadFile(golden)
	if err == nil {
		err = json.Unmarshal(b, &ref)
	}
	if err != nil || len(ref) != len(rerankSections) {
		t.Fatalf("%s: %v (%d cases): run with -update-rerank-golden", golden, err, len(ref))
	}
	best := slices.MaxFunc(ref, func(x, y struct {
		Name  string  `json:"name"`
		Score float64 `json:"score"`
	}) int {
		return cmpFloat(x.Score, y.Score)
	}).Name

	req := question(rerankQuestion, attach(rerankDoc(t)))
	p, err := (&documents.Engine{Library: documents.NewLibrary(), Budget: onePassage}).Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first := sectionOf(t, p.Sources); first == best {
		t.Fatalf("keywords already choose %q: the test shows nothing", first)
	}
	lib := documents.NewLibrary()
	defer lib.Close()
	lib.SetReranker(func() (documents.Reranker, error) {
		return decoder.OpenCrossEncoder(dir, decoder.EmbedOptions{Library: testenv.ORTLibrary(t), Threads: 1})
	})
	p, err = (&documents.Engine{Library: lib, Budget: onePassage}).Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := sectionOf(t, p.Sources); got != best {
		t.Errorf("re-ranked: %q, the reference scores %q highest (%+v)", got, best, ref)
	}
	if p.Ranking != "Passages ranked by keywords, re-ranked by ms-marco-tiny" {
		t.Errorf("ranking %q, problems %q", p.Ranking, p.Problems)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// writeRerankGolden scores each section's chunk text against the question with bertref.py.
// The chunk is the section's text as the index keeps it: its heading line and sentence.
func writeRerankGolden(t *testing.T, dir, golden string) {
	tok, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The passages the reranker reads are the chunks: ask the engine for them all.
	req := question(rerankQuestion, attach(rerankDoc(t)))
	p, err := (&documents.Engine{Library: documents.NewLibrary(), Budget: func() documents.Budget { return documents.Budget{Context: 8192} }}).Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cases []map[string]any
	for _, s := range rerankSections {
		i := slices.IndexFunc(p.Sources, func(src reply.Source) bool { return strings.Contains(src.Text, s) })
		if i < 0 {
			t.Fatalf("no source holds %q", s)
		}
		cases = append(cases, map[string]any{"name": s, "query": tok.Encode(rerankQuestion), "passage": tok.Encode(p.Sources[i].Text)})
	}
	in := filepath.Join(t.TempDir(), "in.json")
	b, _ := json.Marshal(cases)
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(testenv.Python(t), "../tools/bertref/bertref.py", dir, in, golden).CombinedOutput(); err != nil {
		t.Fatalf("bertref.py: %v\n%s", err, out)
	}
}
