package decoder

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"edgechat/inference"
	"edgechat/reply"

	"edgechat/internal/testkit/synth"
)

// fresh answers req on a new engine, so nothing is reused.
func fresh(t *testing.T, model string, req reply.Request, edit func(*inference.RouteConfig)) *reply.Summary {
	t.Helper()
	e := newTestEngine(t, model, edit)
	defer e.Close()
	_, s := collect(t, e, context.Background(), req)
	return s
}

// chatTurns runs a conversation of n turns on e and checks every reply against a fresh engine.
// It returns the summaries.
func chatTurns(t *testing.T, e *inference.Engine, model string, conv string, n int, thinking bool, edit func(*inference.RouteConfig)) []*reply.Summary {
	t.Helper()
	msgs := []reply.Message{{Role: "system", Content: "You are a helpful assistant."}}
	var sums []*reply.Summary
	for i := range n {
		msgs = append(msgs, reply.Message{Role: "user", Content: fmt.Sprintf("Question %d: what about topic %c?", i+1, 'A'+i)})
		req := reply.Request{Messages: slices.Clone(msgs), Thinking: thinking, MaxTokens: 10, Sampling: reply.Sampling{Temperature: ptr(0.0)}, ConversationID: conv}
		evs, got := collect(t, e, context.Background(), req)
		want := fresh(t, model, req, edit)
		if got.FinishReason == reply.FinishError || want.FinishReason == reply.FinishError {
			t.Fatalf("turn %d: %v / %v", i+1, got.Err, want.Err)
		}
		if !slices.Equal(got.IDs, want.IDs) || !slices.Equal(got.PromptIDs, want.PromptIDs) {
			t.Fatalf("turn %d: with reuse %v, without %v", i+1, got.IDs, want.IDs)
		}
		answer, th := replyText(evs)
		if thinking && th == "" {
			th = fmt.Sprintf("I considered topic %c.", 'A'+i) // exercise Qwen3 dropping earlier <think> blocks
		}
		msgs = append(msgs, reply.Message{Role: "assistant", Content: answer, Thinking: th})
		sums = append(sums, got)
	}
	return sums
}

func TestReuseIsExact(t *testing.T) {
	model := tinyModel(t)
	for _, turns := range []int{2, 5, 10} {
		for _, thinking := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d-turns-thinking-%v", turns, thinking), func(t *testing.T) {
				e := newTestEngine(t, model, nil)
				sums := chatTurns(t, e, model, "c1", turns, thinking, nil)
				for i, s := range sums[1:] {
					if s.ReusedTokens < sums[i].PromptTokens/2 {
						t.Errorf("turn %d reused %d of %d prompt tokens; previous prompt had %d", i+2, s.ReusedTokens, s.PromptTokens, sums[i].PromptTokens)
					}
				}
			})
		}
	}
}

func TestReuseRegenerateAndEdit(t *testing.T) {
	model := tinyModel(t)
	e := newTestEngine(t, model, nil)
	base := []reply.Message{{Role: "user", Content: "First question"}, {Role: "assistant", Content: "First answer"}, {Role: "user", Content: "Second question"}}
	req := reply.Request{Messages: base, MaxTokens: 10, Sampling: reply.Sampling{Temperature: ptr(0.0)}}
	_, a := collect(t, e, context.Background(), req)
	_, regen := collect(t, e, context.Background(), req) // regenerate: same prompt again
	// After a reply the engine prefills the history as the next turn will render it, which
	// lacks the generation prompt's empty think block: at most those few tokens run again.
	if !slices.Equal(a.IDs, regen.IDs) || regen.ReusedTokens < regen.PromptTokens-5 {
		t.Fatalf("regenerate: %v vs %v, reused %d of %d", a.IDs, regen.IDs, regen.ReusedTokens, regen.PromptTokens)
	}
	edited := slices.Clone(base)
	edited[0].Content = "An edited first question"
	req.Messages = edited
	_, got := collect(t, e, context.Background(), req)
	want := fresh(t, model, req, nil)
	if !slices.Equal(got.IDs, want.IDs) {
		t.Fatalf("edited: %v vs %v", got.IDs, want.IDs)
	}
	if got.ReusedTokens >= 10 {
		t.Fatalf("an edit in the first message should break the prefix early; reused %d", got.ReusedTokens)
	}
}

func TestReuseAcrossConversations(t *testing.T) {
	layouts := map[string]string{
		"dynamic":   tinyModel(t),
		"bundle":    tinyBundle(t),
		"composite": synthModel(t, "tiny-static", func(o *synth.Options) { o.Layout = synth.LayoutStatic }),
	}
	for name, model := range layouts {
		t.Run(name, func(t *testing.T) { conversationSwitch(t, model) })
	}
}

// conversationSwitch runs A, B, then A again: A's cache must come back from the LRU.
func conversationSwitch(t *testing.T, model string) {
	e := newTestEngine(t, model, nil)
	ask := func(conv string, msgs []reply.Message) *reply.Summary {
		req := reply.Request{Messages: msgs, MaxTokens: 8, Sampling: reply.Sampling{Temperature: ptr(0.0)}, ConversationID: conv}
		_, s := collect(t, e, context.Background(), req)
		if want := fresh(t, model, req, nil); !slices.Equal(s.IDs, want.IDs) {
			t.Fatalf("%s: %v vs fresh %v", conv, s.IDs, want.IDs)
		}
		return s
	}
	a1 := []reply.Message{{Role: "user", Content: "Conversation A, a question about boats and the sea"}}
	b1 := []reply.Message{{Role: "user", Content: "Conversation B is about mountains"}}
	sa := ask("A", a1)
	ask("B", b1)
	a2 := append(slices.Clone(a1), reply.Message{Role: "assistant", Content: "Boats float."}, reply.Message{Role: "user", Content: "And ships?"})
	s := ask("A", a2) // A's cache comes back from the LRU
	// Everything up to A's generation prompt is shared; the empty think block the template
	// adds to a generation prompt (thinking off) is not rendered for earlier turns.
	if s.ReusedTokens < sa.PromptTokens-6 {
		t.Fatalf("switching back to A reused %d tokens; A's first prompt had %d", s.ReusedTokens, sa.PromptTokens)
	}
}

func TestReuseWithTrimmingFallsBackToFullPrefill(t *testing.T) {
	model := tinyModel(t)
	small := func(rc *inference.RouteConfig) { rc.MaxContext = 150 }
	e := newTestEngine(t, model, small)
	sums := chatTurns(t, e, model, "trim", 8, false, small)
	trimmed := false
	for _, s := range sums {
		if s.TrimmedMessages > 0 {
			trimmed = true
			if s.ReusedTokens > 40 {
				t.Errorf("a trimmed prompt reused %d tokens; dropping the oldest turns breaks the prefix after the system prompt", s.ReusedTokens)
			}
		}
	}
	if !trimmed {
		t.Fatal("the conversation never needed trimming; make it longer")
	}
}

func TestReuseAfterCancelIsConsistent(t *testing.T) {
	model := tinyModel(t)
	e := newTestEngine(t, model, nil)
	req := reply.Request{Messages: []reply.Message{{Role: "user", Content: "Tell me a long story"}}, MaxTokens: 1000, Sampling: reply.Sampling{Temperature: ptr(0.0)}}
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := e.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ev := range ch {
		if ev.Kind == reply.EventText || ev.Kind == reply.EventThinking {
			if n++; n == 5 {
				cancel()
			}
		}
	}
	cancel()
	req.MaxTokens = 10
	req.Messages = append(req.Messages, reply.Message{Role: "assistant", Content: "Once"}, reply.Message{Role: "user", Content: "Go on"})
	_, got := collect(t, e, context.Background(), req)
	if want := fresh(t, model, req, nil); !slices.Equal(got.IDs, want.IDs) {
		t.Fatalf("after a cancel: %v vs fresh %v", got.IDs, want.IDs)
	}
}
