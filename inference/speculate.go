package inference

import (
	"context"
	"time"

	"edgechat/reply"

	"edgechat/inference/lookup"
	"edgechat/inference/sample"
)

// speculator is prompt-lookup decoding inside one reply: it drafts the tokens that followed
// an earlier occurrence of the text's last words, checks them in one run of the decoder and
// keeps what the sampler agrees with (sample.Sampler.Verify: greedy output is unchanged,
// sampled output keeps its distribution exactly).
type speculator struct {
	dec     verifyingDecoder
	drafter *lookup.Drafter
}

// verifyingDecoder is a Decoder that checks several rows in one run (prompt lookup's drafts).
type verifyingDecoder interface {
	Decoder
	RowsForwarder
}

// drafting returns the reply's speculator, or nil when the request turns lookup off or the
// decoder cannot check several rows in one run (static NPU graphs, a sliding window).
func (m *Model) drafting(req reply.Request) *speculator {
	d, ok := m.dec.(verifyingDecoder)
	if req.NoLookup || !ok || d.MaxRows() < 2 || m.slides() {
		return nil
	}
	return &speculator{dec: d, drafter: lookup.New(lookup.Options{Timing: m.lookupTiming})}
}

// done keeps what the reply's drafter learnt of the decoder's run times for the model's next
// reply; a nil speculator (no lookup) has nothing to keep.
func (sp *speculator) done(m *Model) {
	if sp != nil {
		m.lookupTiming = sp.drafter.Timing()
	}
}

// step runs the decoder once after history, whose last token is not yet in the cache, when
// a draft exists: left is how many more tokens the reply may take. It returns the tokens
// that run decided (the accepted draft and the sampler's own next token), and run false when
// there was no draft (the caller then runs the plain one-token step). On error the cache is
// as it was.
func (sp *speculator) step(ctx context.Context, s *sample.Sampler, history []int, left int) ([]int, bool, error) {
	room := min(left-1, sp.dec.MaxRows()-1, sp.dec.Capacity()-len(history))
	if room <= 0 {
		return nil, false, nil
	}
	draft := sp.drafter.Draft(history, room)
	if len(draft) == 0 {
		return nil, false, nil
	}
	last := history[len(history)-1]
	start := time.Now()
	rows, err := sp.dec.ForwardRows(ctx, append([]int{last}, draft...))
	if err != nil {
		return nil, false, err
	}
	sp.timed(len(draft)+1, time.Since(start))
	vocab := sp.dec.Vocab()
	seen := history // grows by the accepted draft, for the sampler's penalties
	accepted, next := 0, -1
	for i, t := range draft {
		id, ok := s.Verify(rows[i*vocab:(i+1)*vocab], seen, t)
		if !ok {
			next = id
			break
		}
		seen = append(seen, t)
		accepted++
	}
	if next < 0 {
		next = s.Sample(rows[len(draft)*vocab:(len(draft)+1)*vocab], seen)
	}
	sp.drafter.Observe(len(draft), accepted)
	sp.dec.Truncate(len(history) + accepted) // the rejected draft leaves the cache
	return append(append(make([]int, 0, accepted+1), draft[:accepted]...), next), true, nil
}

// timed tells the drafter how long a run of rows rows took, so drafts are sized by what a
// row costs this decoder on this machine; a nil speculator (no lookup) ignores it.
func (sp *speculator) timed(rows int, d time.Duration) {
	if sp != nil {
		sp.drafter.Timed(rows, d)
	}
}
