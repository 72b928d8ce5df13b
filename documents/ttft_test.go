package documents_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"edgechat/documents"
	"edgechat/inference"
	"edgechat/inference/ort/decoder"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testdocs"
	"edgechat/internal/testkit/testenv"
	"edgechat/reply"
)

// benchModel is a generated model of Qwen3-0.6B's width with 4 layers (internal/testkit/synth),
// written once to the temporary folder.
func benchModel(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "edgechat-bench-qwen3shape-documents")
	if _, err := os.Stat(filepath.Join(dir, "onnx", "model.onnx_data")); err == nil {
		return dir
	}
	o := synth.Qwen3Shape()
	o.TokenizerDir = testenv.TokenizerDir(b, "qwen3")
	if err := synth.Write(dir, o); err != nil {
		b.Fatal(err)
	}
	return dir
}

// timeToFirstToken sends req and returns the time from the call to the first token (or to
// the end, for a reply without any); it stops the reply there.
func timeToFirstToken(b *testing.B, g documents.Generator, req reply.Request) time.Duration {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	ch, err := g.Generate(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	var first time.Duration
	for ev := range ch {
		switch ev.Kind {
		case reply.EventText, reply.EventThinking:
			if first == 0 {
				first = time.Since(start)
				cancel()
			}
		case reply.EventDone:
			if ev.Done.FinishReason == reply.FinishError && first == 0 {
				b.Fatal(ev.Done.Err)
			}
			if first == 0 {
				first = time.Since(start)
			}
		}
	}
	return first
}

// BenchmarkTTFTAttached300Pages asks a question over an attached 300-page PDF and the same
// question with the same passages pasted by hand (the prompt is ~1,300 tokens), through the real engine on a generated
// model with a 2,048-token window (no KV reuse, so both prefill the whole prompt). Metrics:
// both TTFTs, their ratio (target ≤ 1.5), and the first question's TTFT, which also reads
// and indexes the PDF.
func BenchmarkTTFTAttached300Pages(b *testing.B) { ttftAttached(b, nil) }

// BenchmarkTTFTAttached300PagesEmbedded is the same with an embedding model (the generated one
// benchEmbedder picks): every question also embeds itself and fuses the two rankings; the
// first question embeds the whole PDF.
func BenchmarkTTFTAttached300PagesEmbedded(b *testing.B) { ttftAttached(b, benchEmbedder(b)) }

func ttftAttached(b *testing.B, emb documents.Embedder) {
	model := benchModel(b)
	eng, err := inference.New(inference.Config{Open: decoder.Opener(testenv.ORTLibrary(b)), OneShot: true, Routes: []inference.RouteConfig{{
		Name: "cpu", Model: model, NoReuse: true,
		LoadOptions: inference.LoadOptions{MaxContext: 2048, EP: inference.EP{Name: "cpu"}},
	}}})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	budget, err := documents.ModelBudget(model, "", 2048)
	if err != nil {
		b.Fatal(err)
	}
	pdf := filepath.Join(b.TempDir(), "archive.pdf")
	if err := os.WriteFile(pdf, testdocs.LongPDF(300, 250), 0o600); err != nil {
		b.Fatal(err)
	}
	lib := documents.NewLibrary()
	if emb != nil {
		lib.SetEmbedder(func() (documents.Embedder, error) { return emb, nil })
	}
	docs := &documents.Engine{Next: eng, Library: lib, Budget: func() documents.Budget { return budget }}
	zero := 0.0
	// Common words as well as the needle's: the passages fill the budget (~1,000 tokens).
	const q = "What do the payment terms say after termination of the agreement, and what is the access code for the Halvorsen archive vault?"
	attached := reply.Request{
		Messages:    []reply.Message{{Role: "user", Content: q}},
		MaxTokens:   256,
		Sampling:    reply.Sampling{Temperature: &zero},
		Attachments: []reply.Attachment{{Name: "archive.pdf", Path: pdf, IndexPath: pdf + ".idx"}},
	}
	timeToFirstToken(b, eng, reply.Request{Messages: []reply.Message{{Role: "user", Content: "warm up"}}, MaxTokens: 1}) // load the model
	cold := timeToFirstToken(b, docs, attached)
	p, err := docs.Prepare(context.Background(), attached, nil)
	if err != nil {
		b.Fatal(err)
	}
	pasted := p.Request
	var tAttached, tPasted time.Duration
	n := 0
	for b.Loop() {
		if n%2 == 0 { // alternate which goes first: the second of a pair runs on warmer caches
			tAttached += timeToFirstToken(b, docs, attached)
			tPasted += timeToFirstToken(b, eng, pasted)
		} else {
			tPasted += timeToFirstToken(b, eng, pasted)
			tAttached += timeToFirstToken(b, docs, attached)
		}
		n++
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	b.ReportMetric(ms(tAttached), "ms/ttft-attached")
	b.ReportMetric(ms(tPasted), "ms/ttft-pasted")
	b.ReportMetric(float64(tAttached)/float64(tPasted), "ratio")
	b.ReportMetric(float64(cold.Microseconds())/1000, "ms/first-question")
}

// BenchmarkRead300PagePDF reads, chunks and indexes a 300-page PDF (≈ 0.9 MB of text):
// what the first question over a new attachment waits for, before its prefill.
func BenchmarkRead300PagePDF(b *testing.B) {
	pdf := filepath.Join(b.TempDir(), "archive.pdf")
	if err := os.WriteFile(pdf, testdocs.LongPDF(300, 250), 0o600); err != nil {
		b.Fatal(err)
	}
	a := reply.Attachment{Name: "archive.pdf", Path: pdf}
	for b.Loop() {
		if _, err := documents.NewLibrary().Open(context.Background(), a, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepareWarm is what an attachment adds to every later question: retrieval from
// the index in memory, counting the passages' tokens and composing the message. The
// question's words are in most chunks (the most candidates to count).
func BenchmarkPrepareWarm(b *testing.B) {
	pdf := filepath.Join(b.TempDir(), "archive.pdf")
	if err := os.WriteFile(pdf, testdocs.LongPDF(300, 250), 0o600); err != nil {
		b.Fatal(err)
	}
	budget := qwenBudget(b)
	e := &documents.Engine{Library: documents.NewLibrary(), Budget: func() documents.Budget { return budget }}
	req := question("Which payment terms apply to the delivery of goods after termination of the agreement?", []reply.Attachment{{Name: "archive.pdf", Path: pdf}})
	if _, err := e.Prepare(context.Background(), req, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := e.Prepare(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
	}
}
