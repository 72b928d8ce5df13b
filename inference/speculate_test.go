package inference

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"edgechat/reply"
)

// quote is a fake model that answers the raw prompt with target, byte by byte, then the
// end-of-turn token: a reply that repeats much of its prompt, as edits and quotes do.
func quote(prompt, target string) func([]int, int) int {
	return func(ids []int, _ int) int {
		if p := len(ids) - len(prompt); p >= 0 && p < len(target) {
			return int(target[p])
		}
		return fakeIMEnd
	}
}

// Prompt lookup changes how many runs a reply takes, never the reply: every id, the text,
// the finish reason and the cache left for the next turn equal plain decoding's.
func TestLookupKeepsGreedyOutput(t *testing.T) {
	const text = "The quick brown fox jumps over the lazy dog. The quick brown fox is quick, and the dog is lazy."
	for _, tc := range []struct {
		name, prompt, target string
		max                  int
		stop                 []string
		saves                bool // lookup must save runs
	}{
		{"verbatim quote", text + "\nQuote:", text, 200, nil, true},
		{"edited copy", text + "\nEdit:", strings.ReplaceAll(strings.ReplaceAll(text, "dog", "cat"), "quick", "slow"), 200, nil, true},
		{"budget ends inside an accepted draft", text + "\nQuote:", text, 37, nil, true},
		{"stop string inside an accepted draft", text + "\nQuote:", text, 200, []string{"lazy"}, true},
		{"nothing repeats", text + "\nSay:", "xq9!zv#k2_m@w8&y", 200, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(noLookup bool) ([]reply.Event, *reply.Summary, []int, int) {
				rt := decoderOf(fakeDecoder{next: quote(tc.prompt, tc.target), rows: 9})
				e := fakeEngine(t, rt, Config{OneShot: true}, fakeRoute(t, "cpu", 512))
				req := withStop(rawRequest(tc.prompt, tc.max), tc.stop...)
				req.NoLookup = noLookup
				evs, s := collect(t, e, context.Background(), req)
				d := rt.last()
				return evs, s, slices.Clone(d.Cached()), d.runs
			}
			plainEvs, plain, plainCache, plainRuns := run(true)
			evs, got, cache, runs := run(false)
			if plain.Lookup != nil {
				t.Errorf("NoLookup still drafted: %+v", plain.Lookup)
			}
			wantText, _ := replyText(plainEvs)
			gotText, _ := replyText(evs)
			if gotText != wantText || got.FinishReason != plain.FinishReason || !slices.Equal(got.IDs, plain.IDs) {
				t.Fatalf("with lookup %q (%s), plain %q (%s)", gotText, got.FinishReason, wantText, plain.FinishReason)
			}
			if diff := cmp.Diff(plainCache, cache[:min(len(cache), len(plainCache))]); diff != "" || len(cache) < len(plainCache) {
				t.Errorf("cache after the reply (-plain +lookup):\n%s", diff)
			}
			st := got.Lookup
			if st == nil {
				t.Fatal("no lookup counts")
			}
			if st.Runs != runs-1 { // the prompt's run is not the reply's
				t.Errorf("runs: summary %d, decoder %d", st.Runs, runs-1)
			}
			t.Logf("%d tokens: %d runs with lookup, %d plain; %+v", got.GeneratedTokens, runs, plainRuns, *st)
			if tc.saves && (st.Accepted == 0 || runs >= plainRuns*2/3) {
				t.Errorf("lookup saved too little: %d runs vs %d plain, %+v", runs, plainRuns, *st)
			}
			if !tc.saves && runs > plainRuns {
				t.Errorf("lookup took %d runs, plain %d", runs, plainRuns)
			}
		})
	}
}

// After a reply with lookup, the next turn reuses the cache and answers as a fresh engine.
func TestLookupCacheServesNextTurn(t *testing.T) {
	const text = "alpha beta gamma delta, alpha beta gamma delta, alpha beta gamma delta."
	rt := decoderOf(fakeDecoder{rows: 9})
	e := fakeEngine(t, rt, Config{}, fakeRoute(t, "cpu", 1024))
	req := greedy(text, 60)
	req.ConversationID = "c"
	_, first := collect(t, e, context.Background(), req)
	req.Messages = append(req.Messages, reply.Message{Role: "assistant", Content: answerOf(t, first)}, reply.Message{Role: "user", Content: "again: " + text})
	_, second := collect(t, e, context.Background(), req)
	if second.ReusedTokens == 0 {
		t.Errorf("the second turn reused nothing")
	}
	fresh := fakeEngine(t, decoderOf(fakeDecoder{rows: 9}), Config{OneShot: true}, fakeRoute(t, "cpu", 1024))
	req.ConversationID = ""
	_, want := collect(t, fresh, context.Background(), req)
	if !slices.Equal(second.IDs, want.IDs) {
		t.Errorf("second turn %v, fresh engine %v", second.IDs, want.IDs)
	}
}

func answerOf(t *testing.T, s *reply.Summary) string {
	t.Helper()
	var b strings.Builder
	for _, id := range s.IDs {
		b.WriteByte(byte(id))
	}
	return b.String()
}

// A failed verification run is the reply's error and leaves the cache as it was.
func TestLookupRunFails(t *testing.T) {
	const text = "one two three four five six, one two three four five six"
	boom := errors.New("device lost")
	rt := decoderOf(fakeDecoder{next: quote(text, text), rows: 9, fail: func(ids []int) error {
		if len(ids) == 1 && ids[0] == 'f' {
			return boom
		}
		return nil
	}})
	e := fakeEngine(t, rt, Config{OneShot: true}, fakeRoute(t, "cpu", 512))
	_, s := collect(t, e, context.Background(), rawRequest(text, 100))
	if !errors.Is(s.Err, boom) {
		t.Fatalf("error %v, want %v", s.Err, boom)
	}
	d := rt.last()
	if want := len(text) + len(s.IDs) - 1; len(d.Cached()) != want {
		t.Errorf("cache holds %d tokens after the failure, want %d (prompt and reply but its last)", len(d.Cached()), want)
	}
}

// Sampling with lookup drafts and keeps drafts (the distribution test is in package sample);
// a decoder that cannot check rows, or one row at a time, decodes plainly.
func TestLookupOnlyWhereRowsCanBeChecked(t *testing.T) {
	const text = "red green blue, red green blue, red green blue, red green blue"
	for _, tc := range []struct {
		name  string
		dec   fakeDecoder
		temp  float64
		draft bool
	}{
		{"sampled", fakeDecoder{next: quote(text, text), rows: 9}, 0.7, true},
		{"no multi-row forward", fakeDecoder{next: quote(text, text)}, 0, false},
		{"one row at a time", fakeDecoder{next: quote(text, text), rows: 1}, 0, false},
		{"sliding window", fakeDecoder{next: quote(text, text), rows: 9, slides: true}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := fakeEngine(t, decoderOf(tc.dec), Config{OneShot: true}, fakeRoute(t, "cpu", 512))
			req := rawRequest(text, 100)
			req.Sampling.Temperature = ptr(tc.temp)
			_, s := collect(t, e, context.Background(), req)
			if s.Err != nil {
				t.Fatal(s.Err)
			}
			if got := s.Lookup != nil && s.Lookup.Accepted > 0; got != tc.draft {
				t.Errorf("drafted and kept: %v, want %v (%+v)", got, tc.draft, s.Lookup)
			}
		})
	}
}

// A reply's drafter starts from what the model's earlier replies learnt of the decoder's run
// times, not from the default row cost each time; a reply without lookup changes nothing.
func TestLookupTimingCarriesOver(t *testing.T) {
	m := &Model{dec: &rowsDecoder{fakeDecoder: &fakeDecoder{rows: 9, capacity: 512}}}
	first := m.drafting(reply.Request{})
	if first == nil {
		t.Fatal("no drafter on a decoder that checks 9 rows")
	}
	start := first.drafter.RowCost()
	for range 40 {
		first.timed(1, time.Millisecond)
		first.timed(9, 1400*time.Microsecond)
	}
	first.done(m)
	learnt := first.drafter.RowCost()
	if learnt == start {
		t.Fatalf("the row cost stayed at %v", learnt)
	}
	var none *speculator
	none.done(m) // plain decoding
	if next := m.drafting(reply.Request{}); next.drafter.RowCost() != learnt {
		t.Errorf("the next reply starts at row cost %v, want %v", next.drafter.RowCost(), learnt)
	}
}
