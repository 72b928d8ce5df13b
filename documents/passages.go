package documents

import (
	"cmp"
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
// document whole when they all fit, else the best-ranked chunks in reading order. Chunks are
// ranked by BM25; with query (the question's embedding; nil for none) the chunks closest in
// meaning join the candidates and the two rankings are fused by reciprocal rank, so a passage
// that shares no word with the question can still be chosen. A question that matches nothing
// (e.g. "summarise this") gets the documents' first chunks.
func Choose(docs []*Doc, question string, budget int, b Budget, query []float32) []reply.Source {
	if whole, ok := wholeFits(docs, budget, b); ok {
		return whole
	}
	pool, order := rank(docs, question, query)
	return pick(pool, order, budget, b)
}

// rank gathers the candidate passages of docs for question and orders them, best first: by
// BM25, fused with the order by meaning when query is not nil.
func rank(docs []*Doc, question string, query []float32) ([]passage, []int) {
	var pool []passage
	at := map[[2]int]int{} // (doc, chunk) → index in pool
	for d, doc := range docs {
		hits := doc.Index.Search(question, candidates)
		for _, h := range hits {
			p := chunkPassage(docs, d, h.Chunk)
			p.score = h.Score / hits[0].Score
			at[[2]int{d, h.Chunk}] = len(pool)
			pool = append(pool, p)
		}
		if len(hits) == 0 { // nothing matched: offer the start of the document
			for c := range min(len(doc.Index.Chunks), 4) {
				at[[2]int{d, c}] = len(pool)
				pool = append(pool, chunkPassage(docs, d, c))
			}
		}
	}
	order := lexicalOrder(pool)
	if query != nil {
		var sem []int
		for _, dc := range semanticOrder(docs, query, candidates) {
			i, ok := at[dc]
			if !ok {
				i = len(pool)
				at[dc] = i
				pool = append(pool, chunkPassage(docs, dc[0], dc[1]))
			}
			sem = append(sem, i)
		}
		order = fuse(order, sem)
	}
	return pool, order
}

// pick takes passages in order while they fit budget (skipping one that does not, as a
// smaller one further down may) and returns them in reading order.
func pick(pool []passage, order []int, budget int, b Budget) []reply.Source {
	var chosen []passage
	left := budget
	for _, i := range order {
		p := pool[i]
		n := b.count(p.src.Text) + sourceHeaderTokens
		if n > left {
			continue
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
