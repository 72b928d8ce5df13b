// Package lookup is prompt-lookup decoding, independent of any engine: it drafts the tokens
// that followed the latest earlier occurrence of the text's last n-gram (in the prompt or the
// reply so far), keeps the longest prefix of a draft that greedy decoding agrees with plus
// the model's own next token, sizes its drafts by how they fare, and turns itself off for a
// while where drafts keep failing, so text that repeats nothing is not slowed down.
package lookup

// Options tune a Drafter; zero fields take the defaults.
type Options struct {
	// MinNGram and MaxNGram bound the suffix lengths matched, longest first (3 and 5). Short
	// suffixes match too often by chance: over stories260K's greedy stories (12 prompts × 400
	// tokens) suffixes of 3 to 5 tokens saved 1.56× of the decoder runs, 2 to 4 1.49×, 1 to 5
	// 1.39×.
	MinNGram, MaxNGram int
	// MaxDraft caps the drafted tokens per verification (8); the first draft is StartDraft (4).
	MaxDraft, StartDraft int
	// Window is how many recent verifications judge the acceptance rate (8); below
	// MinAcceptance (0.25 of drafted tokens) drafting pauses for Pause tokens (32), a pause
	// that doubles each time it ends in failure again (up to 512). A run checking k drafted
	// tokens costs about 1 + 0.13k one-token runs on an int4 Qwen3-width model (T(k+1)/T(1)
	// = 1.06 … 2.08 for k = 1 … 8), so drafts pay while more than ~13% of drafted tokens are
	// kept; 0.25 leaves a margin for slower multi-row kernels.
	Window        int
	MinAcceptance float64
	Pause         int
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MinNGram, 3)
	def(&o.MaxNGram, 5)
	def(&o.MaxDraft, 8)
	def(&o.StartDraft, 4)
	def(&o.Window, 8)
	def(&o.Pause, 32)
	if o.MinAcceptance <= 0 {
		o.MinAcceptance = 0.25
	}
	o.MaxNGram = max(o.MaxNGram, o.MinNGram)
	o.StartDraft = min(o.StartDraft, o.MaxDraft)
	return o
}

// Stats count what drafting did.
type Stats struct {
	Verifications int // forwards that checked a draft
	Drafted       int // tokens drafted
	Accepted      int // drafted tokens greedy decoding agreed with
	Paused        int // times drafting paused for failing
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
	k       int // next draft's length
	recent  []verdict
	pause   int // tokens left before drafting again
	backoff int
	Stats   Stats
}

type verdict struct{ drafted, accepted int }

// New returns a Drafter.
func New(o Options) *Drafter {
	o = o.withDefaults()
	return &Drafter{o: o, k: o.StartDraft, backoff: o.Pause}
}

// Draft returns up to k tokens to verify after text (prompt and reply so far): those that
// followed the most recent earlier occurrence of text's longest matching suffix n-gram. It
// returns nil while paused or when nothing matches.
func (d *Drafter) Draft(text []int) []int {
	if d.pause > 0 {
		return nil
	}
	return Find(text, d.o.MinNGram, d.o.MaxNGram, d.k)
}

// Find is the search behind Draft: for n from maxN down to minN, the most recent earlier
// position where text's last n tokens occur, and up to k tokens after it.
func Find(text []int, minN, maxN, k int) []int {
	L := len(text)
	for n := min(maxN, L-1); n >= minN; n-- {
		suffix := text[L-n:]
		for start := L - n - 1; start >= 0; start-- {
			if !equal(text[start:start+n], suffix) {
				continue
			}
			follow := text[start+n : min(L, start+n+k)]
			if len(follow) > 0 {
				return follow
			}
		}
	}
	return nil
}

func equal(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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

// Observe records a verification of drafted tokens of which accepted were kept, and sizes
// the next draft: one more than was accepted (at least 1, at most MaxDraft), growing by two
// after a draft that was taken whole.
func (d *Drafter) Observe(drafted, accepted int) {
	if drafted == 0 {
		return
	}
	d.Stats.Verifications++
	d.Stats.Drafted += drafted
	d.Stats.Accepted += accepted
	if accepted == drafted {
		d.k = min(d.o.MaxDraft, max(d.k, drafted)+2)
	} else {
		d.k = min(d.o.MaxDraft, max(1, accepted+1))
	}
	d.recent = append(d.recent, verdict{drafted, accepted})
	if len(d.recent) > d.o.Window {
		d.recent = d.recent[1:]
	}
	if len(d.recent) < d.o.Window {
		return
	}
	var dr, ac int
	for _, v := range d.recent {
		dr, ac = dr+v.drafted, ac+v.accepted
	}
	if float64(ac) < d.o.MinAcceptance*float64(dr) {
		d.pause, d.recent = d.backoff, d.recent[:0]
		d.backoff = min(2*d.backoff, 512)
		d.Stats.Paused++
		d.k = d.o.StartDraft
	} else if float64(ac) >= 2*d.o.MinAcceptance*float64(dr) {
		d.backoff = d.o.Pause // drafting pays again: the next pause starts short
	}
}

// Step records n tokens decoded without a draft (counting down a pause).
func (d *Drafter) Step(n int) { d.pause = max(0, d.pause-n) }

// Paused reports whether drafting is paused.
func (d *Drafter) Paused() bool { return d.pause > 0 }

// Next is the length the next draft may have.
func (d *Drafter) Next() int { return d.k }
