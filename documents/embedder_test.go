package documents_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"edgechat/documents"
	"edgechat/history"
	"edgechat/inference/ort/decoder"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/reply"
)

// conceptEmbedder is a fake embedding model that knows synonyms: each text's vector counts
// its words per concept, so "automobile" and "vehicle" are close while sharing no letters.
type conceptEmbedder struct {
	id string
	mu sync.Mutex
	// passages and queries count the calls.
	passages, queries int
}

var concepts = [][]string{
	{"vehicle", "automobile", "car"},
	{"parked", "garage", "stored"},
	{"bicycle", "bicycles", "bike"},
}

func (c *conceptEmbedder) vec(text string) []float32 {
	v := make([]float32, len(concepts)+1)
	v[len(concepts)] = 0.05 // every text has a little in common
	for _, w := range strings.Fields(strings.ToLower(text)) {
		w = strings.Trim(w, ".,?!")
		for i, words := range concepts {
			if slices.Contains(words, w) {
				v[i]++
			}
		}
	}
	return v
}

func (c *conceptEmbedder) Identity() string { return c.id }

func (c *conceptEmbedder) EmbedQuery(_ context.Context, q string) ([]float32, error) {
	c.mu.Lock()
	c.queries++
	c.mu.Unlock()
	return c.vec(q), nil
}

func (c *conceptEmbedder) EmbedPassages(_ context.Context, texts []string, progress func(done, total int)) ([][]float32, error) {
	c.mu.Lock()
	c.passages++
	c.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = c.vec(t)
	}
	progress(len(texts), len(texts))
	return out, nil
}

func use(e documents.Embedder) func() (documents.Embedder, error) {
	return func() (documents.Embedder, error) { return e, nil }
}

// synonymsDoc is a Markdown file of 30 sections: the answer to "Where is the vehicle
// parked?" uses none of its words, two sections about bicycles share "parked" with it, the
// rest is filler.
func synonymsDoc(t *testing.T) string {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "# Section %d\n\n", i+1)
		switch i {
		case 12:
			b.WriteString("The automobile stays in garage seven, level two, behind the blue door.\n\n")
		case 3, 20:
			b.WriteString("Bicycles are parked by the entrance. Bicycles parked elsewhere are removed.\n\n")
		default:
			b.WriteString("Quarterly figures for the northern office rose slightly while staff numbers held steady through winter.\n\n")
		}
	}
	return writeFile(t, t.TempDir(), "handbook.md", []byte(b.String()))
}

const vehicleQuestion = "Where is the vehicle parked?"

func has(sources []reply.Source, text string) bool {
	return slices.ContainsFunc(sources, func(s reply.Source) bool { return strings.Contains(s.Text, text) })
}

// TestFusionFindsWhatKeywordsMiss: BM25 alone offers only the bicycle sections; with an
// embedding model the section about the automobile joins and is chosen.
func TestFusionFindsWhatKeywordsMiss(t *testing.T) {
	md := synonymsDoc(t)
	budget := func() documents.Budget { return documents.Budget{Context: 1400} }
	req := question(vehicleQuestion, attach(md))

	plain := &documents.Engine{Library: documents.NewLibrary(), Budget: budget}
	p, err := plain.Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if has(p.Sources, "automobile") || !has(p.Sources, "Bicycles") {
		t.Fatalf("keywords alone: sources %+v — want the bicycle sections only", p.Sources)
	}
	if p.Ranking != "Passages ranked by keywords" {
		t.Errorf("ranking %q", p.Ranking)
	}

	lib := documents.NewLibrary()
	emb := &conceptEmbedder{id: "concepts-1"}
	lib.SetEmbedder(use(emb))
	fused := &documents.Engine{Library: lib, Budget: budget}
	var statuses []string
	p, err = fused.Prepare(context.Background(), req, func(s string) { statuses = append(statuses, s) })
	if err != nil {
		t.Fatal(err)
	}
	if !has(p.Sources, "automobile") {
		t.Errorf("fused: sources %+v — want the automobile section", p.Sources)
	}
	if len(p.Problems) != 0 || !strings.Contains(p.Ranking, "meaning") {
		t.Errorf("problems %q, ranking %q", p.Problems, p.Ranking)
	}
	if !slices.Contains(statuses, "Embedding handbook.md: 100%") {
		t.Errorf("progress %q: want the embedding's", statuses)
	}
	if emb.passages != 1 || emb.queries != 1 {
		t.Errorf("%d passage and %d query calls, want 1 and 1", emb.passages, emb.queries)
	}
}

// TestVectorsPersist: vectors are made once, saved beside the index and reused after a
// restart; another model makes its own; removing the attachment removes them.
func TestVectorsPersist(t *testing.T) {
	md := synonymsDoc(t)
	a := attach(md)[0]
	ctx := context.Background()
	open := func(e documents.Embedder) *documents.Doc {
		t.Helper()
		lib := documents.NewLibrary() // a restart
		lib.SetEmbedder(use(e))
		d, err := lib.Open(ctx, a, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.Vectors.Len() != len(d.Index.Chunks) || d.VectorsBy != e.Identity() {
			t.Fatalf("%d vectors by %q for %d chunks", d.Vectors.Len(), d.VectorsBy, len(d.Index.Chunks))
		}
		return d
	}
	first := &conceptEmbedder{id: "concepts-1"}
	d1 := open(first)
	if _, err := os.Stat(documents.VectorsPath(a.IndexPath)); err != nil {
		t.Fatalf("vectors not saved: %v", err)
	}
	again := &conceptEmbedder{id: "concepts-1"}
	d2 := open(again)
	if again.passages != 0 {
		t.Errorf("embedded %d times after a restart, want 0 (saved vectors reused)", again.passages)
	}
	for i := range d1.Vectors.Len() {
		if !slices.Equal(d1.Vectors.At(i), d2.Vectors.At(i)) {
			t.Fatalf("vector %d differs after loading", i)
		}
	}
	other := &conceptEmbedder{id: "another-model"}
	open(other)
	if other.passages != 1 {
		t.Errorf("another model embedded %d times, want 1", other.passages)
	}

	// The same library asked twice embeds once.
	lib := documents.NewLibrary()
	counted := &conceptEmbedder{id: "concepts-2"}
	lib.SetEmbedder(use(counted))
	for range 2 {
		if _, err := lib.Open(ctx, a, nil); err != nil {
			t.Fatal(err)
		}
	}
	if counted.passages != 1 {
		t.Errorf("embedded %d times in one library, want 1", counted.passages)
	}
}

// TestBrokenEmbeddingModelFallsBack: a model folder that cannot be opened leaves ranking to
// BM25, says so, and the chat goes on.
func TestBrokenEmbeddingModelFallsBack(t *testing.T) {
	broken := t.TempDir()
	writeFile(t, broken, "config.json", []byte(`{"model_type": "qwen3"}`))
	if err := os.MkdirAll(filepath.Join(broken, "onnx"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(broken, "onnx"), "model.onnx", []byte("not a protobuf"))
	writeFile(t, broken, "tokenizer.json", []byte("{}"))
	lib := documents.NewLibrary()
	lib.SetEmbedder(func() (documents.Embedder, error) {
		e, err := decoder.OpenEmbedder(broken, decoder.EmbedOptions{Library: testenv.ORTLibrary(t), Threads: 1})
		if err != nil {
			return nil, err
		}
		return e, nil
	})
	next := &fakeGen{}
	e := &documents.Engine{Next: next, Library: lib, Budget: func() documents.Budget { return documents.Budget{Context: 1400} }}
	ch, err := e.Generate(context.Background(), question(vehicleQuestion, attach(synonymsDoc(t))))
	if err != nil {
		t.Fatal(err)
	}
	c := reply.Collect(context.Background(), ch)
	if c.Summary.FinishReason != reply.FinishStop || !has(c.Summary.Sources, "Bicycles") {
		t.Fatalf("reply %+v: want the keyword passages and a normal end", c.Summary)
	}
	if len(c.Notices) != 1 || !strings.HasPrefix(c.Notices[0], "Ranking by keywords only: the embedding model cannot be used") {
		t.Errorf("notices %q", c.Notices)
	}
	// Store.Index (at attach time) does not fail for it either.
	s := &documents.Store{Dir: t.TempDir(), Library: lib}
	h, err := s.Add("c1", synonymsDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Index(context.Background(), "c1", h, nil); err != nil {
		t.Errorf("Index with a broken embedding model: %v", err)
	}
}

// TestSyntheticEmbeddingModel runs the real embedder on a generated Qwen3-Embedding-shaped
// model through the library: one vector per chunk, unit length, saved and loaded again
// without running the model.
func TestSyntheticEmbeddingModel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "emb")
	o := synth.Tiny()
	o.Layout, o.TokenizerDir = synth.LayoutEmbedding, testenv.TokenizerDir(t, "qwen3")
	if err := synth.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	emb, err := decoder.OpenEmbedder(dir, decoder.EmbedOptions{Library: testenv.ORTLibrary(t), Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	counted := &countingEmbedder{Embedder: emb}
	md := synonymsDoc(t)
	for round := range 2 {
		lib := documents.NewLibrary()
		lib.SetEmbedder(use(counted))
		e := &documents.Engine{Library: lib, Budget: func() documents.Budget { return documents.Budget{Context: 1400} }}
		p, err := e.Prepare(context.Background(), question(vehicleQuestion, attach(md)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Sources) == 0 || len(p.Problems) != 0 || !strings.Contains(p.Ranking, "meaning") {
			t.Fatalf("round %d: sources %d, problems %q, ranking %q", round, len(p.Sources), p.Problems, p.Ranking)
		}
		d, _ := lib.Open(context.Background(), attach(md)[0], nil)
		for i := range d.Vectors.Len() {
			v := d.Vectors.At(i)
			n := 0.0
			for _, x := range v {
				n += float64(x) * float64(x)
			}
			if len(v) != o.Hidden || math.Abs(n-1) > 1e-2 { // unit length, within int8's steps
				t.Fatalf("vector %d: %d dimensions, |v|² %g", i, len(v), n)
			}
		}
	}
	if counted.passages != 1 || counted.queries != 2 {
		t.Errorf("%d passage runs and %d queries over two opens, want 1 and 2", counted.passages, counted.queries)
	}
}

type countingEmbedder struct {
	documents.Embedder
	passages, queries int
}

func (c *countingEmbedder) EmbedQuery(ctx context.Context, q string) ([]float32, error) {
	c.queries++
	return c.Embedder.EmbedQuery(ctx, q)
}

func (c *countingEmbedder) EmbedPassages(ctx context.Context, texts []string, progress func(int, int)) ([][]float32, error) {
	c.passages++
	return c.Embedder.EmbedPassages(ctx, texts, progress)
}

// blockingEmbedder holds EmbedPassages until release is closed.
type blockingEmbedder struct {
	conceptEmbedder
	started chan struct{}
	release chan struct{}
}

func (b *blockingEmbedder) EmbedPassages(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error) {
	progress(len(texts)/2, len(texts))
	close(b.started)
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return b.conceptEmbedder.EmbedPassages(ctx, texts, progress)
}

// TestQuestionDoesNotWaitForVectors: in the window (Background), a question asked while the
// attachment is being embedded is answered at once with keyword ranking, which says so; the
// next one after the vectors are made uses them. The command line's engine waits instead.
func TestQuestionDoesNotWaitForVectors(t *testing.T) {
	emb := &blockingEmbedder{conceptEmbedder: conceptEmbedder{id: "slow"}, started: make(chan struct{}), release: make(chan struct{})}
	lib := documents.NewLibrary()
	defer lib.Close()
	lib.SetEmbedder(use(emb))
	s := &documents.Store{Dir: t.TempDir(), Library: lib}
	h, err := s.Add("c1", synonymsDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	indexed := make(chan error, 1)
	go func() { // as the window does on attach
		_, err := s.Index(context.Background(), "c1", h, nil)
		indexed <- err
	}()
	<-emb.started
	e := &documents.Engine{Library: lib, Background: true, Budget: func() documents.Budget { return documents.Budget{Context: 1400} }}
	req := question(vehicleQuestion, s.Requests("c1", []history.Attachment{h}))
	p, err := e.Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Ranking != "Passages ranked by keywords (handbook.md is being embedded: 50%)" || len(p.Sources) == 0 {
		t.Errorf("while embedding: ranking %q, %d sources", p.Ranking, len(p.Sources))
	}
	close(emb.release)
	if err := <-indexed; err != nil {
		t.Fatal(err)
	}
	p, err = e.Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Ranking, "meaning") || !has(p.Sources, "automobile") {
		t.Errorf("after embedding: ranking %q", p.Ranking)
	}
	if emb.passages != 1 {
		t.Errorf("embedded %d times, want 1", emb.passages)
	}
}

// TestQuestionStartsEmbeddingInBackground: a document without vectors (the model was set
// after it was attached) gets them in the background from its first question.
func TestQuestionStartsEmbeddingInBackground(t *testing.T) {
	emb := &blockingEmbedder{conceptEmbedder: conceptEmbedder{id: "later"}, started: make(chan struct{}), release: make(chan struct{})}
	lib := documents.NewLibrary()
	defer lib.Close()
	md := synonymsDoc(t)
	a := attach(md)[0]
	if _, err := lib.Open(context.Background(), a, nil); err != nil { // indexed without a model
		t.Fatal(err)
	}
	lib.SetEmbedder(use(emb))
	e := &documents.Engine{Library: lib, Background: true, Budget: func() documents.Budget { return documents.Budget{Context: 1400} }}
	p, err := e.Prepare(context.Background(), question(vehicleQuestion, []reply.Attachment{a}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(p.Ranking, "meaning") {
		t.Errorf("first question ranked by meaning before any vectors: %q", p.Ranking)
	}
	<-emb.started // the background embedding began
	close(emb.release)
	// Open waits for the embedding under way, and then has the vectors.
	d, err := lib.Open(context.Background(), a, nil)
	if err != nil || d.Vectors.Len() != len(d.Index.Chunks) {
		t.Fatalf("%d vectors, %v", d.Vectors.Len(), err)
	}
	if _, err := os.Stat(documents.VectorsPath(a.IndexPath)); err != nil {
		t.Errorf("vectors not saved: %v", err)
	}
}

// closingEmbedder records Close.
type closingEmbedder struct {
	conceptEmbedder
	closed chan struct{}
}

func (c *closingEmbedder) Close() error { close(c.closed); return nil }

// TestSetEmbedderDoesNotWaitForOpening: the window changes the setting on the UI goroutine
// while a model may be loading; SetEmbedder returns at once and the old model is closed when
// its loading ends.
func TestSetEmbedderDoesNotWaitForOpening(t *testing.T) {
	lib := documents.NewLibrary()
	loading, release := make(chan struct{}), make(chan struct{})
	old := &closingEmbedder{conceptEmbedder: conceptEmbedder{id: "old"}, closed: make(chan struct{})}
	lib.SetEmbedder(func() (documents.Embedder, error) {
		close(loading)
		<-release
		return old, nil
	})
	got := make(chan documents.Embedder, 1)
	go func() {
		e, _ := lib.Embedder()
		got <- e
	}()
	<-loading
	done := make(chan struct{})
	go func() {
		lib.SetEmbedder(use(&conceptEmbedder{id: "new"}))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("SetEmbedder waited for the old model to load")
	}
	if e, _ := lib.Embedder(); e == nil || e.Identity() != "new" {
		t.Errorf("embedder after SetEmbedder: %v", e)
	}
	close(release)
	if e := <-got; e != documents.Embedder(old) {
		t.Errorf("the caller loading the old model got %v", e)
	}
	select {
	case <-old.closed:
	case <-time.After(5 * time.Second):
		t.Error("the old model was not closed")
	}
}
