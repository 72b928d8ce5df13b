// Package lookup is prompt-lookup decoding, independent of any engine: it drafts the tokens
// that followed the latest earlier occurrence of the text's last n-gram (in the prompt or the
// reply so far), keeps the longest prefix of a draft that greedy decoding agrees with plus
// the model's own next token, and sizes each draft by what it is expected to save: how often
// drafts from matches of that length were kept, against what one more row costs the
// decoder. Where drafts keep failing it stops drafting, so text that repeats nothing is not
// slowed down.
package lookup

import "time"

// Options tune a Drafter; zero fields take the defaults.
type Options struct {
	// MinNGram and MaxNGram bound the suffix lengths matched, longest first (1 and 5). Each
	// length up to 4, then 5–7, 8–15 and so on, keeps its own record of kept drafts, so short
	// matches draft only while they pay. (Matches of up to 16, told apart in three records,
	// drafted as well in lookupsim's replay and 4% worse on bench --lookup's quote.)
	MinNGram, MaxNGram int
	// MaxDraft caps the drafted tokens per verification (15; the caller caps it further by
	// the rows its decoder checks in one run).
	MaxDraft int
	// RowCost is what one more row in a run costs, as a fraction of a one-token run. Zero
	// learns it from the run times the caller reports (Timed), starting from Timing, or from
	// 0.13, measured on an int4 Qwen3-width model (T(k+1)/T(1) = 1.06 … 2.08 for k = 1 … 8);
	// stories260K's rows cost ~0.01.
	RowCost float64
	// Timing is what an earlier Drafter on the same decoder learnt (its Timing): run costs
	// belong to the decoder and the machine, not to one reply, so a reply need not learn
	// them afresh.
	Timing Timing
}

// Timing is what a Drafter has learnt of its decoder's run times.
type Timing struct {
	RowCost float64       // one more row's cost, as a fraction of a one-token run
	Step    time.Duration // a one-token run
}

const (
	startRowCost = 0.13
	// prior is the pseudo-count of kept and failed tokens each match length starts with: a
	// first draft is tried at even odds, and a few verdicts outweigh the guess.
	prior = 0.5
	// forget weighs each older checked token down, so the record reflects the last ~10: a
	// reply that turns to copying, or stops, is followed within a few drafts.
	forget = 0.9
	// probeEvery: a match length judged not worth drafting still gets a one-token draft after
	// this many matches, so a change in the text is noticed.
	probeEvery = 32
)

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MinNGram, 1)
	def(&o.MaxNGram, 5)
	def(&o.MaxDraft, 15)
	o.MaxNGram = max(o.MaxNGram, o.MinNGram)
	return o
}

// Stats count what drafting did.
type Stats struct {
	Verifications int // forwards that checked a draft
	Drafted       int // tokens drafted
	Accepted      int // drafted tokens greedy decoding agreed with
	Skipped       int // matches not drafted because they were not expected to pay
}

// AcceptanceRate is Accepted / Drafted (0 when nothing was drafted).
func (s Stats) AcceptanceRate() float64 {
	if s.Drafted == 0 {
		return 0
	}
	return float64(s.Accepted) / float64(s.Drafted)
}

// Drafter proposes drafts and learns from their verification. One goroutine uses it.
type Drafter struct {
	o       Options
	byLen   []record // by match length
	last    int      // match length of the draft awaiting its verdict
	rowCost float64
	step    time.Duration // recent one-token run time
	Stats   Stats
}

// record is how drafts from matches of one length fared: kept tokens and failures (a
// failure is the first drafted token the model disagreed with; those after it were not
// checked), each older one weighed down by forget.
type record struct {
	kept, failed float64
	skips        int // matches not drafted since the last draft
}

// keep is the chance the next drafted token is kept, given the ones before it were.
func (r record) keep() float64 { return (r.kept + prior) / (r.kept + r.failed + 2*prior) }

// New returns a Drafter.
func New(o Options) *Drafter {
	o = o.withDefaults()
	c, step := o.RowCost, time.Duration(0)
	if c <= 0 {
		c, step = startRowCost, o.Timing.Step
		if o.Timing.RowCost > 0 {
			c = o.Timing.RowCost
		}
	}
	return &Drafter{o: o, byLen: make([]record, bucket(o.MaxNGram)+1), rowCost: c, step: step}
}

// Draft returns up to room tokens to verify after text (prompt and reply so far): those that
// followed the most recent earlier occurrence of text's longest matching suffix (see Find), as
// many as are expected to save time. It returns nil when nothing matches or drafting would not pay.
func (d *Drafter) Draft(text []int, room int) []int {
	n, follow := match(text, d.o.MinNGram, d.o.MaxNGram, min(room, d.o.MaxDraft))
	if n == 0 {
		return nil
	}
	b := bucket(n)
	r := &d.byLen[b]
	k := bestLength(r.keep(), d.rowCost, len(follow))
	if k == 0 {
		if r.skips++; r.skips < probeEvery {
			d.Stats.Skipped++
			return nil
		}
		k = 1
	}
	r.skips, d.last = 0, b
	return follow[:k]
}

// bucket is the record a match of n tokens is kept in: one per length up to 4, then
// 5–7, 8–15, 16–31 and so on, so that long matches, rarer, still gather a record.
func bucket(n int) int {
	if n <= 4 {
		return n
	}
	b := 5
	for n >= 8 {
		n /= 2
		b++
	}
	return b
}

// bestLength is the draft length, at most limit, that maximises the expected tokens per
// unit of run time, (1 + p + p² + … + pᵏ) / (1 + c·k) for a per-token keep chance p and a
// row cost c; 0 when no draft beats a plain step.
func bestLength(p, c float64, limit int) int {
	best, bestGain := 0, 1.0
	expect, pk := 1.0, 1.0
	for k := 1; k <= limit; k++ {
		pk *= p
		expect += pk
		if g := expect / (1 + c*float64(k)); g > bestGain*1.0001 {
			best, bestGain = k, g
		}
	}
	return best
}

// Find is the search behind Draft: for n from maxN down to minN, the most recent earlier
// position where text's last n tokens occur, and the k tokens after it (going round again
// where they run into the end: see periodic).
func Find(text []int, minN, maxN, k int) []int {
	_, follow := match(text, minN, maxN, k)
	return follow
}

func match(text []int, minN, maxN, k int) (int, []int) {
	L := len(text)
	if k <= 0 || L < 2 {
		return 0, nil
	}
	// One pass over the earlier positions: how far the text before each one agrees with
	// the text's end; the longest agreement wins, the most recent among equals.
	bestN, bestAt := 0, 0
	last := text[L-1]
	for at := L - 1; at >= 1; at-- {
		if text[at-1] != last {
			continue
		}
		n := 1
		for n < maxN && n < at && text[at-1-n] == text[L-1-n] {
			n++
		}
		if n > bestN {
			bestN, bestAt = n, at
			if n == maxN {
				break
			}
		}
	}
	if bestN < minN {
		return 0, nil
	}
	return bestN, periodic(text, bestAt, k)
}

// periodic is the k tokens that follow text[:at] if the text goes on as it did after at: where
// that runs past the end, the text is repeating with period len(text)-at, and the draft goes
// round again (a reply stuck in a loop, "and and and", is drafted k tokens at a time, not
// one period).
func periodic(text []int, at, k int) []int {
	L := len(text)
	if at+k <= L {
		return text[at : at+k]
	}
	out := make([]int, k)
	for i := range out {
		out[i] = text[at+i%(L-at)]
	}
	return out
}

// Accept compares a draft with greedy decoding's picks: picks[i] is the argmax of the logits
// after the context plus draft[:i] (so len(picks) = len(draft)+1). It returns how many drafted
// tokens greedy decoding agrees with and the token that follows them, which is the model's
// own next token: the output equals plain greedy decoding.
func Accept(draft, picks []int) (accepted, next int) {
	for accepted < len(draft) && draft[accepted] == picks[accepted] {
		accepted++
	}
	return accepted, picks[accepted]
}

// Observe records the verification of the last draft: drafted tokens of which accepted
// were kept.
func (d *Drafter) Observe(drafted, accepted int) {
	if drafted == 0 || d.last == 0 {
		return
	}
	d.Stats.Verifications++
	d.Stats.Drafted += drafted
	d.Stats.Accepted += accepted
	r := &d.byLen[d.last]
	for range accepted {
		r.kept, r.failed = r.kept*forget+1, r.failed*forget
	}
	if accepted < drafted {
		r.kept, r.failed = r.kept*forget, r.failed*forget+1
	}
	d.last = 0
}

// Timed reports a decoder run of rows rows that took dur, so that the row cost is learnt
// (unless Options.RowCost fixed it): one-token runs set the step time, runs of several rows
// what each extra row adds to it.
func (d *Drafter) Timed(rows int, dur time.Duration) {
	if d.o.RowCost > 0 || dur <= 0 {
		return
	}
	if rows <= 1 {
		if d.step == 0 {
			d.step = dur
		}
		d.step = (d.step*7 + dur) / 8
		return
	}
	if d.step == 0 {
		return
	}
	c := (float64(dur)/float64(d.step) - 1) / float64(rows-1)
	d.rowCost = 0.8*d.rowCost + 0.2*min(max(c, 0.002), 1)
}

// RowCost is the current estimate of one more row's cost, as a fraction of a one-token run.
func (d *Drafter) RowCost() float64 { return d.rowCost }

// Timing is what the Drafter has learnt of run times, for the next Drafter on the same
// decoder (Options.Timing); zero when its row cost is fixed.
func (d *Drafter) Timing() Timing {
	if d.o.RowCost > 0 {
		return Timing{}
	}
	return Timing{RowCost: d.rowCost, Step: d.step}
}
