package lookup

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name       string
		text       []int
		minN, maxN int
		k          int
		want       []int
	}{
		{"trigram", []int{1, 2, 3, 4, 5, 9, 1, 2, 3}, 1, 3, 4, []int{4, 5, 9, 1}},
		{"most recent occurrence", []int{1, 2, 7, 1, 2, 8, 1, 2}, 1, 2, 2, []int{8, 1}},
		{"longest suffix first", []int{5, 2, 6, 1, 2, 7, 1, 2}, 1, 2, 1, []int{7}},
		{"falls back to unigram", []int{3, 4, 9, 8, 4}, 1, 3, 3, []int{9, 8, 4}},
		{"k caps", []int{1, 2, 3, 4, 5, 1}, 1, 3, 2, []int{2, 3}},
		{"a loop goes round", []int{1, 2, 1}, 1, 3, 5, []int{2, 1, 2, 1, 2}},
		{"a one-token loop", []int{4, 7, 7}, 1, 3, 3, []int{7, 7, 7}},
		{"a longer loop", []int{9, 1, 2, 3, 1, 2, 3, 1}, 1, 5, 5, []int{2, 3, 1, 2, 3}},
		{"no match", []int{1, 2, 3, 4}, 1, 3, 4, nil},
		{"min n too long", []int{1, 2, 9, 2}, 2, 3, 4, nil},
		{"one token", []int{1}, 1, 3, 4, nil},
		{"empty", nil, 1, 3, 4, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Find(tc.text, tc.minN, tc.maxN, tc.k)); diff != "" {
				t.Errorf("Find (-want +got):\n%s", diff)
			}
		})
	}
}

// naiveMatch is match by its definition: for n from maxN down to minN, the most recent
// earlier occurrence of the last n tokens with at least one token after it.
func naiveMatch(text []int, minN, maxN, k int) (int, []int) {
	L := len(text)
	if k <= 0 {
		return 0, nil
	}
	for n := min(maxN, L-1); n >= minN; n-- {
		for start := L - n - 1; start >= 0; start-- {
			if slices.Equal(text[start:start+n], text[L-n:]) {
				var follow []int // the text as it went on, and round again past the end
				for i := range k {
					follow = append(follow, text[start+n+i%(L-start-n)])
				}
				return n, follow
			}
		}
	}
	return 0, nil
}

// FuzzMatch: the one-pass search finds what the definition does, on texts over a small
// alphabet (so that matches of every length occur).
func FuzzMatch(f *testing.F) {
	f.Add([]byte{1, 2, 3, 1, 2, 3, 1, 2}, uint8(1), uint8(16), uint8(15))
	f.Add([]byte{0, 0, 0, 0, 0, 0}, uint8(2), uint8(3), uint8(4))
	f.Add([]byte{5, 1, 2, 5, 1, 3, 5, 1}, uint8(1), uint8(5), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, minN, maxN, k uint8) {
		text := make([]int, len(b))
		for i, c := range b {
			text[i] = int(c % 4)
		}
		lo, hi := int(minN%8)+1, int(maxN%40)+1
		n, follow := match(text, lo, hi, int(k%20))
		wn, wfollow := naiveMatch(text, lo, hi, int(k%20))
		if n != wn || !slices.Equal(follow, wfollow) {
			t.Fatalf("match(%v, %d, %d, %d) = %d %v, want %d %v", text, lo, hi, k%20, n, follow, wn, wfollow)
		}
	})
}

func TestBucket(t *testing.T) {
	for n, want := range map[int]int{1: 1, 4: 4, 5: 5, 7: 5, 8: 6, 15: 6, 16: 7, 31: 7, 32: 8} {
		if got := bucket(n); got != want {
			t.Errorf("bucket(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestAccept(t *testing.T) {
	for _, tc := range []struct {
		name         string
		draft, picks []int
		n, next      int
	}{
		{"all", []int{4, 5, 6}, []int{4, 5, 6, 7}, 3, 7},
		{"prefix", []int{4, 5, 6}, []int{4, 9, 6, 7}, 1, 9},
		{"none", []int{4, 5}, []int{8, 5, 6}, 0, 8},
		{"later agreement does not count", []int{4, 5, 6}, []int{1, 5, 6, 7}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, next := Accept(tc.draft, tc.picks)
			if n != tc.n || next != tc.next {
				t.Errorf("Accept = %d, %d; want %d, %d", n, next, tc.n, tc.next)
			}
		})
	}
}

func TestBestLength(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p, c  float64
		limit int
		want  int
	}{
		{"even odds on int4 rows", 0.5, 0.13, 15, 2},
		{"even odds on cheap rows", 0.5, 0.01, 15, 5},
		{"copying on cheap rows: all it may", 0.95, 0.01, 15, 15},
		{"copying on int4 rows", 0.9, 0.13, 15, 8},
		{"the limit caps", 0.95, 0.01, 3, 3},
		{"rarely kept: no draft", 0.1, 0.13, 15, 0},
		{"never kept", 0, 0.01, 15, 0},
		{"no room", 0.9, 0.01, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := bestLength(tc.p, tc.c, tc.limit); got != tc.want {
				t.Errorf("bestLength(%v, %v, %d) = %d, want %d", tc.p, tc.c, tc.limit, got, tc.want)
			}
		})
	}
}

// TestDraftsFollowVerdicts: drafts grow while they are kept, stop once they fail (the match
// length counted as skipped), and a one-token probe comes after probeEvery skipped matches.
func TestDraftsFollowVerdicts(t *testing.T) {
	text := slices.Repeat([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 3)
	d := New(Options{RowCost: 0.13})
	if got := len(d.Draft(text, 15)); got != 2 {
		t.Fatalf("first draft: %d tokens, want 2 (even odds at int4 row cost)", got)
	}
	var lengths []int
	for range 12 {
		k := len(d.Draft(text, 15))
		d.Observe(k, k)
		lengths = append(lengths, k)
	}
	if !slices.IsSorted(lengths) || lengths[len(lengths)-1] < 12 {
		t.Errorf("drafts kept whole grew as %v, want them to grow past 12", lengths)
	}
	failed := 0
	for ; failed < 30; failed++ {
		k := len(d.Draft(text, 15))
		if k == 0 {
			break
		}
		d.Observe(k, 0)
	}
	if failed == 30 || failed < 2 {
		t.Fatalf("drafting stopped after %d failures, want a few", failed)
	}
	skipped := 1 // the match that found drafting stopped
	var probe []int
	for ; probe == nil && skipped < 1000; skipped++ {
		probe = d.Draft(text, 15)
	}
	if skipped-1 != probeEvery-1 || len(probe) != 1 {
		t.Errorf("probe %v after %d skipped matches, want one token after %d", probe, skipped-1, probeEvery-1)
	}
	if d.Stats.Skipped != probeEvery-1 {
		t.Errorf("stats count %d skipped matches, want %d", d.Stats.Skipped, probeEvery-1)
	}
	if d.Stats.AcceptanceRate() <= 0 || d.Stats.AcceptanceRate() >= 1 {
		t.Errorf("acceptance rate %v", d.Stats.AcceptanceRate())
	}
}

// TestMatchLengthsKeptApart: failing one-token matches do not stop drafts from long matches.
func TestMatchLengthsKeptApart(t *testing.T) {
	d := New(Options{RowCost: 0.13})
	short := []int{7, 1, 9, 7}                     // only "7" matches
	long := []int{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5} // a 5-gram matches
	for range 10 {
		k := len(d.Draft(short, 15))
		if k == 0 {
			break
		}
		d.Observe(k, 0)
	}
	if d.Draft(short, 15) != nil {
		t.Fatal("one-token matches still draft after failing")
	}
	if d.Draft(long, 15) == nil {
		t.Fatal("a 5-token match does not draft after one-token matches failed")
	}
}

func TestRowCostLearnt(t *testing.T) {
	d := New(Options{})
	if d.RowCost() != startRowCost {
		t.Fatalf("start %v", d.RowCost())
	}
	for range 40 {
		d.Timed(1, time.Millisecond)
		d.Timed(9, 2*time.Millisecond) // 8 more rows double the run: 0.125 a row
	}
	if c := d.RowCost(); math.Abs(c-0.125) > 0.005 {
		t.Errorf("learnt row cost %v, want 0.125", c)
	}
	for range 40 {
		d.Timed(1, time.Millisecond)
		d.Timed(9, 1100*time.Microsecond)
	}
	if c := d.RowCost(); math.Abs(c-0.0125) > 0.002 {
		t.Errorf("learnt row cost %v after rows got cheap, want 0.0125", c)
	}
	fixed := New(Options{RowCost: 0.05})
	fixed.Timed(1, time.Millisecond)
	fixed.Timed(9, 9*time.Millisecond)
	if fixed.RowCost() != 0.05 || fixed.Timing() != (Timing{}) {
		t.Errorf("a fixed row cost moved to %v (timing %+v)", fixed.RowCost(), fixed.Timing())
	}
}

// TestTimingCarriesOver: a Drafter starts from what an earlier one on the same decoder learnt
// of its run times, and goes on learning from there: its first multi-row run is measured
// against the earlier one-token run time, with no one-token run of its own yet.
func TestTimingCarriesOver(t *testing.T) {
	first := New(Options{})
	for range 40 {
		first.Timed(1, time.Millisecond)
		first.Timed(9, 1400*time.Microsecond) // 0.05 a row
	}
	learnt := first.Timing()
	if math.Abs(learnt.RowCost-0.05) > 0.005 || learnt.Step != time.Millisecond {
		t.Fatalf("learnt %+v", learnt)
	}
	next := New(Options{Timing: learnt})
	if next.RowCost() != learnt.RowCost {
		t.Errorf("the next drafter starts at row cost %v, want %v", next.RowCost(), learnt.RowCost)
	}
	next.Timed(9, 3*time.Millisecond) // 0.25 a row against the carried step time
	if c := next.RowCost(); !(c > learnt.RowCost) {
		t.Errorf("a costlier run left the row cost at %v", c)
	}
	// Without an earlier drafter's timing it starts from the int4 Qwen3-width figure.
	if c := New(Options{Timing: Timing{}}).RowCost(); c != startRowCost {
		t.Errorf("start %v", c)
	}
}

// fakeModel is a deterministic "decoder": the next token is a function of the last two, so
// its greedy text falls into loops (like a small model's repeated phrases) that drafts catch.
// It keeps an explicit cache to check rollbacks.
type fakeModel struct {
	vocab int
	cache []int
	runs  int
}

func (m *fakeModel) next(a, b int) int { return (a*7 + b*13 + a*b) % m.vocab }

func (m *fakeModel) Forward(ids []int, rows int) ([]int, error) {
	m.cache = append(m.cache, ids...)
	m.runs++
	var picks []int
	for i := len(m.cache) - rows; i < len(m.cache); i++ {
		a := 0
		if i > 0 {
			a = m.cache[i-1]
		}
		picks = append(picks, m.next(a, m.cache[i]))
	}
	return picks, nil
}

func (m *fakeModel) Truncate(n int) { m.cache = m.cache[:min(n, len(m.cache))] }

func never(int) bool { return false }

func checkSame(t *testing.T, vocab int, prompt []int, maxTokens int, stop func(int) bool) (plain, drafted Result) {
	t.Helper()
	a, b := &fakeModel{vocab: vocab}, &fakeModel{vocab: vocab}
	plain, err := Greedy(a, prompt, maxTokens, stop, nil)
	if err != nil {
		t.Fatal(err)
	}
	drafted, err = Greedy(b, prompt, maxTokens, stop, New(Options{RowCost: 0.05}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain.Tokens, drafted.Tokens) {
		t.Fatalf("prompt %v: plain %v, with lookup %v", prompt, plain.Tokens, drafted.Tokens)
	}
	if !slices.Equal(a.cache, b.cache) {
		t.Fatalf("prompt %v: caches differ: plain %v, with lookup %v", prompt, a.cache, b.cache)
	}
	return plain, drafted
}

// TestGreedySameAsPlain over many prompts: the same tokens, the same cache, fewer runs where
// the text repeats.
func TestGreedySameAsPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var plainRuns, lookupRuns int
	for i := range 200 {
		vocab := 5 + r.IntN(60)
		prompt := make([]int, 1+r.IntN(40))
		for j := range prompt {
			prompt[j] = r.IntN(vocab)
		}
		stopAt := r.IntN(vocab)
		stop := never
		if i%3 == 0 {
			stop = func(id int) bool { return id == stopAt }
		}
		p, d := checkSame(t, vocab, prompt, 1+r.IntN(100), stop)
		plainRuns, lookupRuns = plainRuns+p.Forwards, lookupRuns+d.Forwards
	}
	t.Logf("decoder runs: %d plain, %d with lookup", plainRuns, lookupRuns)
	if lookupRuns*3 > plainRuns*2 {
		t.Errorf("lookup saved too few runs on looping text: %d vs %d", lookupRuns, plainRuns)
	}
}

func FuzzGreedy(f *testing.F) {
	f.Add([]byte{1, 2, 3, 1, 2}, uint8(40), uint8(11), uint8(0))
	f.Add([]byte{0}, uint8(1), uint8(5), uint8(3))
	f.Fuzz(func(t *testing.T, prompt []byte, maxTokens, vocab, stopAt uint8) {
		if len(prompt) == 0 || maxTokens == 0 || vocab < 2 {
			return
		}
		ids := make([]int, len(prompt))
		for i, b := range prompt {
			ids[i] = int(b) % int(vocab)
		}
		checkSame(t, int(vocab), ids, int(maxTokens), func(id int) bool { return stopAt > 0 && id == int(stopAt) })
	})
}

func ExampleFind() {
	fmt.Println(Find([]int{10, 11, 12, 13, 99, 10, 11}, 1, 3, 3))
	// Output: [12 13 99]
}
