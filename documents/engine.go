package documents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"edgechat/reply"
)

// Generator streams replies (the inference engine, or anything that behaves like it).
type Generator interface {
	Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error)
}

// Engine puts the passages of a request's attachments into its last user message, then
// lets Next answer; the reply's summary lists them as Sources. Requests without
// attachments pass straight through. Reading and indexing happen on the reply's goroutine,
// reported as status events.
type Engine struct {
	Next    Generator
	Library *Library
	// Budget returns the budget of the model that will answer (read per request, so new
	// settings apply); nil estimates an 8,192-token context.
	Budget func() Budget
	// Background: a question does not wait for its documents' vectors (embedding a long
	// document with a full-size model takes minutes on a laptop's CPU); until they are made,
	// in the background, its passages are ranked by keywords. The window sets it; the command
	// line waits.
	Background bool
}

// Prepared is a request with its passages in place.
type Prepared struct {
	Request reply.Request
	Sources []reply.Source
	// Problems are sentences for the person: the attachments that could not be read, or
	// were read in part (Doc.Note), and why passages were ranked by keywords only when an
	// embedding model is set but failed.
	Problems []string
	// Ranking says how the passages were chosen, for the status line ("" when the documents
	// were given whole or there were none).
	Ranking string
	// rankedBy is Ranking without the progress of embeddings under way: what the reply's
	// sources keep.
	rankedBy string
}

// Prepare reads (or loads) the attachments of req and returns it with the chosen passages
// in its last user message. An attachment that cannot be read is left out and named in
// Problems; only cancellation is an error.
func (e *Engine) Prepare(ctx context.Context, req reply.Request, status Status) (Prepared, error) {
	p := Prepared{Request: req}
	last := len(req.Messages) - 1
	if len(req.Attachments) == 0 || last < 0 || req.Messages[last].Role != "user" {
		return p, nil
	}
	if status == nil {
		status = func(string) {}
	}
	lib := e.Library
	if lib == nil {
		lib = NewLibrary()
	}
	var docs []*Doc
	var pending []string // documents being embedded, with progress
	keywordsOnly := ""
	for _, a := range req.Attachments {
		open := lib.Open
		if e.Background {
			open = lib.OpenNow
		}
		d, err := open(ctx, a, status)
		if ctx.Err() != nil {
			return p, ctx.Err()
		}
		if errors.Is(err, ErrNoEmbedding) && d != nil {
			keywordsOnly = err.Error()
			err = nil
		}
		if err != nil {
			p.Problems = append(p.Problems, err.Error())
			continue
		}
		if d.Note != "" {
			p.Problems = append(p.Problems, d.Note)
		}
		if made, total := lib.Embedding(a); total > 0 && d.Vectors == nil {
			pending = append(pending, fmt.Sprintf("%s is being embedded: %d%%", a.Name, made*100/total))
		}
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		return p, nil
	}
	b := Budget{Context: 8192}
	if e.Budget != nil {
		b = e.Budget()
	}
	question := req.Messages[last].Content
	budget := b.Passages(req)
	var query []float32
	whole, fits := wholeFits(docs, budget, b)
	if fits {
		p.Sources = whole
	} else {
		p.Ranking = "Passages ranked by keywords"
		if emb, _ := lib.Embedder(); emb != nil && keywordsOnly == "" && allEmbedded(docs, emb.Identity()) {
			q, err := emb.EmbedQuery(ctx, question)
			if ctx.Err() != nil {
				return p, ctx.Err()
			}
			if err != nil {
				keywordsOnly = fmt.Sprintf("%v: the embedding model failed on the question: %v", ErrNoEmbedding, err)
			} else {
				query = q
				p.Ranking = "Passages ranked by keywords and by meaning (" + modelName(emb, "an embedding model") + ")"
			}
		}
		if keywordsOnly != "" {
			p.Problems = append(p.Problems, capitalize(keywordsOnly)+".")
		}
		pool, order := rank(docs, question, query)
		order, err := e.rerank(ctx, lib, question, pool, order, &p, status)
		if err != nil {
			return p, err
		}
		p.Sources = pick(pool, order, budget, b)
		p.rankedBy = p.Ranking
		if query == nil && len(pending) > 0 {
			p.Ranking += " (" + strings.Join(pending, ", ") + ")"
		}
	}
	msgs := append([]reply.Message(nil), req.Messages...)
	msgs[last].Content = Compose(question, p.Sources)
	p.Request.Messages = msgs
	p.Request.Attachments = nil
	return p, nil
}

// rerank re-orders the candidates with the library's reranker, when there is one, saying so
// in p.Ranking; a reranker that cannot be opened or fails leaves the order as it was and
// says why in p.Problems. Only cancellation is an error.
func (e *Engine) rerank(ctx context.Context, lib *Library, question string, pool []passage, order []int, p *Prepared, status Status) ([]int, error) {
	rr, err := lib.Reranker()
	if err == nil && rr == nil || len(order) < 2 {
		return order, nil
	}
	if err == nil {
		status(fmt.Sprintf("Re-ranking %d passages with %s…", min(rerankTop, len(order)), modelName(rr, "the reranker")))
		var ranked []int
		ranked, err = rerank(ctx, rr, question, pool, order)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			p.Ranking += ", re-ranked by " + modelName(rr, "a reranker")
			return ranked, nil
		}
	}
	p.Problems = append(p.Problems, fmt.Sprintf("The reranker cannot be used: %v. The passages keep their first ranking.", err))
	return order, nil
}

// allEmbedded reports whether every document has vectors by the model named id.
func allEmbedded(docs []*Doc, id string) bool {
	for _, d := range docs {
		if d.VectorsBy != id {
			return false
		}
	}
	return true
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// statusEvery bounds how often progress reaches the reply stream.
const statusEvery = 100 * time.Millisecond

// Generate answers req with its attachments' passages.
func (e *Engine) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	if len(req.Attachments) == 0 {
		return e.Next.Generate(ctx, req)
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("the conversation is empty")
	}
	out := make(chan reply.Event, 64)
	go func() {
		defer close(out)
		sum := e.serve(ctx, req, out)
		reply.SendFinal(ctx, out, reply.Event{Kind: reply.EventDone, Done: sum})
	}()
	return out, nil
}

// serve runs on the reply's goroutine: prepare, then forward Next's events, and return the
// summary with the sources.
func (e *Engine) serve(ctx context.Context, req reply.Request, out chan<- reply.Event) *reply.Summary {
	var mu sync.Mutex
	lastStatus := time.Time{}
	status := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(lastStatus) >= statusEvery {
			lastStatus = time.Now()
			reply.Emit(ctx, out, reply.Event{Kind: reply.EventStatus, Text: msg})
		}
	}
	p, err := e.Prepare(ctx, req, status)
	if err != nil {
		return reply.Ended(ctx, nil)
	}
	for _, msg := range p.Problems {
		if !reply.Emit(ctx, out, reply.Event{Kind: reply.EventNotice, Text: msg}) {
			return reply.Ended(ctx, nil)
		}
	}
	if p.Ranking != "" && !reply.Emit(ctx, out, reply.Event{Kind: reply.EventStatus, Text: p.Ranking}) {
		return reply.Ended(ctx, nil)
	}
	ch, err := e.Next.Generate(ctx, p.Request)
	if err != nil {
		return &reply.Summary{FinishReason: reply.FinishError, Err: err, Sources: p.Sources, Ranking: p.rankedBy}
	}
	var sum *reply.Summary
	forward := true
	for ev := range ch {
		if ev.Kind == reply.EventDone {
			sum = ev.Done
			continue
		}
		if forward && !reply.Emit(ctx, out, ev) {
			forward = false // keep draining so Next can finish
		}
	}
	sum = reply.Ended(ctx, sum)
	sum.Sources, sum.Ranking = p.Sources, p.rankedBy
	return sum
}
