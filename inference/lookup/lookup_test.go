package lookup

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

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
		{"draft runs to the end", []int{1, 2, 1}, 1, 3, 5, []int{2, 1}},
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

// TestAdaptive: a draft taken whole grows the next one, a partial one shrinks it to one more
// than was kept, and a window of failures pauses drafting, for longer each time.
func TestAdaptive(t *testing.T) {
	d := New(Options{})
	steps := []struct {
		drafted, accepted, wantK int
		wantPaused               bool
	}{
		{4, 4, 6, false}, {6, 6, 8, false}, {8, 8, 8, false}, {8, 2, 3, false},
		{3, 0, 1, false}, {1, 0, 1, false}, {1, 0, 1, false}, {1, 0, 1, false},
		// The window of 8 slides: 29 drafted / 16 accepted, then 24 / 10 — still above a quarter.
		{1, 0, 1, false}, {1, 0, 1, false},
		// 17 drafted / 2 accepted: drafting pauses, and the next draft starts at 4 again.
		{1, 0, 4, true},
	}
	for i, s := range steps {
		d.Observe(s.drafted, s.accepted)
		if d.Next() != s.wantK || d.Paused() != s.wantPaused {
			t.Fatalf("step %d (%d/%d): next %d paused %v; want %d %v", i, s.accepted, s.drafted, d.Next(), d.Paused(), s.wantK, s.wantPaused)
		}
	}
	if d.Draft([]int{1, 2, 3, 1, 2, 3}) != nil {
		t.Error("drafted while paused")
	}
	d.Step(31)
	if !d.Paused() {
		t.Error("the pause ended early")
	}
	d.Step(1)
	if d.Paused() || d.Draft([]int{1, 2, 3, 1, 2, 3}) == nil {
		t.Error("the pause did not end after 32 tokens")
	}
	for range 8 {
		d.Observe(4, 0)
	}
	d.Step(63)
	if !d.Paused() {
		t.Error("the second pause is not longer than the first")
	}
	if d.Stats.Paused != 2 || d.Stats.AcceptanceRate() <= 0 {
		t.Errorf("stats %+v", d.Stats)
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
	drafted, err = Greedy(b, prompt, maxTokens, stop, New(Options{}))
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
