package documents

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"edgechat/reply"
)

// candidates is how many chunks each document offers to the ranking.
const candidates = 64

// passage is a chunk chosen for a prompt.
type passage struct {
	doc, chunk int // indexes into the documents and the document's chunks
	// score is the BM25 score over the document's best one (scores of different indexes
	// are not on one scale).
	score float64
	src   reply.Source
}

// Choose picks what goes into the prompt for question within budget tokens: every
// document whole when they all fit, else the best-ranked chunks (lexical ranking, fused with
// emb's when it is set), in reading order. A question that matches nothing (e.g.
// "summarise this") gets the documents' first chunks.
func Choose(ctx context.Context, docs []*Doc, question string, budget int, b Budget, emb Embedder) []reply.Source {
	if whole, ok := wholeFits(docs, budget, b); ok {
		return whole
	}
	var pool []passage
	for d, doc := range docs {
		hits := doc.Index.Search(question, candidates)
		for _, h := range hits {
			p := chunkPassage(docs, d, h.Chunk)
			p.score = h.Score / hits[0].Score
			pool = append(pool, p)
		}
		if len(hits) == 0 { // nothing matched: offer the start of the document
			for c := range min(len(doc.Index.Chunks), 4) {
				pool = append(pool, chunkPassage(docs, d, c))
			}
		}
	}
	order := lexicalOrder(pool)
	if emb != nil {
		if sem, err := semanticOrder(ctx, emb, question, pool); err == nil {
			order = fuse(order, sem)
		}
	}
	var chosen []passage
	left := budget
	for _, i := range order {
		p := pool[i]
		n := b.count(p.src.Text) + sourceHeaderTokens
		if n > left {
			continue // a smaller one further down may still fit
		}
		left -= n
		chosen = append(chosen, p)
	}
	slices.SortFunc(chosen, func(x, y passage) int {
		return cmp.Or(cmp.Compare(x.doc, y.doc), cmp.Compare(x.chunk, y.chunk))
	})
	out := make([]reply.Source, len(chosen))
	for i, p := range chosen {
		out[i] = p.src
	}
	return out
}

// sourceHeaderTokens bounds the "[3] report.pdf, page 12" line and blank lines.
const sourceHeaderTokens = 24

func chunkPassage(docs []*Doc, d, c int) passage {
	ch := docs[d].Index.Chunks[c]
	return passage{doc: d, chunk: c, src: reply.Source{File: docs[d].Name, Page: ch.Page, Heading: ch.Heading, Text: ch.Text}}
}

// wholeFits returns every section of every document when all are kept whole and fit.
func wholeFits(docs []*Doc, budget int, b Budget) ([]reply.Source, bool) {
	var out []reply.Source
	bytes := 0
	for _, d := range docs {
		if d.Sections == nil {
			return nil, false
		}
		for _, s := range d.Sections {
			bytes += len(s.Text)
			out = append(out, reply.Source{File: d.Name, Page: s.Page, Heading: s.Heading, Text: s.Text})
		}
	}
	if bytes > budget*8 { // surely too long: no need to count
		return nil, false
	}
	n := 0
	for _, s := range out {
		n += b.count(s.Text) + sourceHeaderTokens
	}
	return out, n <= budget
}

// lexicalOrder ranks the pool by normalised score, then by position.
func lexicalOrder(pool []passage) []int {
	order := make([]int, len(pool))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Or(cmp.Compare(pool[y].score, pool[x].score), cmp.Compare(pool[x].chunk, pool[y].chunk))
	})
	return order
}

// Compose writes the user message that carries the passages and the question. Passages
// are numbered so the answer can cite them.
func Compose(question string, sources []reply.Source) string {
	if len(sources) == 0 {
		return question
	}
	var b strings.Builder
	b.WriteString("Answer the question at the end using the numbered passages from my attached documents. Cite the passages you use like [1]. If they do not hold the answer, say so.\n\n")
	for i, s := range sources {
		fmt.Fprintf(&b, "[%d] %s\n%s\n\n", i+1, s.Label(), s.Text)
	}
	b.WriteString("Question: ")
	b.WriteString(question)
	return b.String()
}
