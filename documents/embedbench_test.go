package documents_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"edgechat/documents"
	"edgechat/inference/ort/decoder"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testdocs"
	"edgechat/internal/testkit/testenv"
	"edgechat/reply"
)

// benchEmbedder opens a generated Qwen3-Embedding-shaped model, written once to the
// temporary folder: EDGECHAT_BENCH_EMBED=tiny (hidden 64, 2 layers; the default),
// qwen3-0.6b-shape (Qwen3-Embedding-0.6B's width, hidden 1024, with 4 of its 28 layers) or
// qwen3-0.6b-shape-q4 (the same with 4-bit weights, as the export's model_q4.onnx; run at
// accuracy level 4 as the app does, or as published with EDGECHAT_BENCH_AS_PUBLISHED=1).
func benchEmbedder(b *testing.B) *decoder.Embedder {
	b.Helper()
	preset := os.Getenv("EDGECHAT_BENCH_EMBED")
	o := synth.Tiny()
	switch preset {
	case "", "tiny":
		preset = "tiny"
	case "qwen3-0.6b-shape":
		o = synth.Qwen3Shape()
	case "qwen3-0.6b-shape-q4":
		o = synth.Qwen3Shape()
		o.Quant = synth.QuantQ4
	default:
		b.Fatalf("EDGECHAT_BENCH_EMBED=%q: use tiny, qwen3-0.6b-shape or qwen3-0.6b-shape-q4", preset)
	}
	dir := filepath.Join(os.TempDir(), "edgechat-bench-embedding-"+preset)
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		o.Layout, o.TokenizerDir = synth.LayoutEmbedding, testenv.TokenizerDir(b, "qwen3")
		if err := synth.Write(dir, o); err != nil {
			b.Fatal(err)
		}
	}
	o2 := decoder.EmbedOptions{Library: testenv.ORTLibrary(b), GraphCache: filepath.Join(os.TempDir(), "edgechat-bench-graphs")}
	if os.Getenv("EDGECHAT_BENCH_AS_PUBLISHED") != "" {
		o2.GraphCache = ""
	}
	e, err := decoder.OpenEmbedder(dir, o2)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// benchPages is EDGECHAT_BENCH_PAGES (default 300): the generated PDF's length.
func benchPages(b *testing.B) int {
	n, err := strconv.Atoi(os.Getenv("EDGECHAT_BENCH_PAGES"))
	if err != nil || n <= 0 {
		return 300
	}
	return n
}

// BenchmarkEmbedIndexPDF embeds every chunk of a generated PDF (300 pages unless
// EDGECHAT_BENCH_PAGES says otherwise), its index already built: what attaching it adds with
// an embedding model. Metrics: chunks, tokens embedded per second.
func BenchmarkEmbedIndexPDF(b *testing.B) {
	emb := benchEmbedder(b)
	dir := b.TempDir()
	pdf := filepath.Join(dir, "archive.pdf")
	if err := os.WriteFile(pdf, testdocs.LongPDF(benchPages(b), min(250, benchPages(b))), 0o600); err != nil {
		b.Fatal(err)
	}
	a := reply.Attachment{Name: "archive.pdf", Path: pdf, IndexPath: pdf + ".idx"}
	d, err := documents.NewLibrary().Open(context.Background(), a, nil)
	if err != nil {
		b.Fatal(err)
	}
	tokens := 0
	for _, c := range d.Index.Chunks {
		tokens += len(emb.Tokens(c.Text))
	}
	for b.Loop() {
		os.Remove(documents.VectorsPath(a.IndexPath))
		lib := documents.NewLibrary()
		lib.SetEmbedder(func() (documents.Embedder, error) { return emb, nil })
		if d, err = lib.Open(context.Background(), a, nil); err != nil || d.Vectors.Len() != len(d.Index.Chunks) {
			b.Fatalf("%d vectors, %v", d.Vectors.Len(), err)
		}
	}
	text := 0
	for _, p := range testdocs.LongPages(benchPages(b), min(250, benchPages(b))) {
		text += len(p)
	}
	b.ReportMetric(float64(len(d.Index.Chunks)), "chunks")
	b.ReportMetric(float64(len(d.Vectors.Q)+4*len(d.Vectors.Scale))/float64(text), "vector-bytes/text-byte")
	b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkPrepareWarmEmbedded is BenchmarkPrepareWarm with an embedding model: each
// question embeds itself and fuses BM25 with cosine similarity over every chunk's vector
// (the PDF has EDGECHAT_BENCH_PAGES pages, 300 unless set).
func BenchmarkPrepareWarmEmbedded(b *testing.B) {
	emb := benchEmbedder(b)
	pdf := filepath.Join(b.TempDir(), "archive.pdf")
	if err := os.WriteFile(pdf, testdocs.LongPDF(benchPages(b), min(250, benchPages(b))), 0o600); err != nil {
		b.Fatal(err)
	}
	budget := qwenBudget(b)
	lib := documents.NewLibrary()
	lib.SetEmbedder(func() (documents.Embedder, error) { return emb, nil })
	e := &documents.Engine{Library: lib, Budget: func() documents.Budget { return budget }}
	req := question("Which payment terms apply to the delivery of goods after termination of the agreement?", []reply.Attachment{{Name: "archive.pdf", Path: pdf}})
	p, err := e.Prepare(context.Background(), req, nil)
	if err != nil || p.Ranking == "" || len(p.Problems) > 0 {
		b.Fatalf("ranking %q, problems %q, %v", p.Ranking, p.Problems, err)
	}
	for b.Loop() {
		if _, err := e.Prepare(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
	}
}
