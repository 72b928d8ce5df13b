package inference

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"edgechat/reply"
)

func rawRequest(text string, maxTokens int) reply.Request {
	return reply.Request{Prompt: &reply.Prompt{Text: text}, MaxTokens: maxTokens, Sampling: reply.Sampling{Temperature: ptr(0)}}
}

// A raw prompt is the text's own tokens (the fake's byte-level tokenizer adds no special
// tokens): no template, no roles; the reply continues it, <think> and all, as plain text.
func TestRawCompletion(t *testing.T) {
	for _, tc := range []struct {
		name      string
		next      string
		req       reply.Request
		wantIDs   []int
		answer    string
		finish    string
		generated int
	}{
		{"text", "ime there was", rawRequest("Once upon a t", 50), byteIDs("Once upon a t"), "ime there was", reply.FinishStop, 13},
		{"special tokens typed stay text", "!", rawRequest("a<|im_end|>", 50), byteIDs("a<|im_end|>"), "!", reply.FinishStop, 1},
		{"ids as given", "xyz", reply.Request{Prompt: &reply.Prompt{IDs: []int{fakeIMStart, 'h', 'i'}}, MaxTokens: 2}, []int{fakeIMStart, 'h', 'i'}, "xy", reply.FinishLength, 2},
		{"think tags are text", "<think>no</think>yes", rawRequest("Q:", 50), byteIDs("Q:"), "<think>no</think>yes", reply.FinishStop, 20},
		{"stop string", "one. two.", withStop(rawRequest("Count:", 50), " two"), byteIDs("Count:"), "one.", reply.FinishStop, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := fakeEngine(t, decoderOf(fakeDecoder{next: script(tc.next)}), Config{OneShot: true}, fakeRoute(t, "cpu", 512))
			evs, s := collect(t, e, context.Background(), tc.req)
			if s.FinishReason != tc.finish || s.Err != nil {
				t.Fatalf("finish %q, error %v; want %q", s.FinishReason, s.Err, tc.finish)
			}
			if !slices.Equal(s.PromptIDs, tc.wantIDs) {
				t.Errorf("prompt ids %v, want %v", s.PromptIDs, tc.wantIDs)
			}
			answer, thinking := replyText(evs)
			if answer != tc.answer || thinking != "" {
				t.Errorf("answer %q thinking %q, want %q and no thinking", answer, thinking, tc.answer)
			}
			if tc.generated >= 0 && s.GeneratedTokens != tc.generated {
				t.Errorf("%d tokens generated, want %d", s.GeneratedTokens, tc.generated)
			}
		})
	}
}

func byteIDs(s string) []int {
	var ids []int
	for _, b := range []byte(s) {
		ids = append(ids, int(b))
	}
	return ids
}

// A raw prompt is never trimmed: over the context it is a context-length error; a request
// that is neither a conversation nor a prompt, or both, or has ids outside the vocabulary, is
// refused.
func TestRawPromptRefused(t *testing.T) {
	e := fakeEngine(t, decoderOf(fakeDecoder{}), Config{OneShot: true}, fakeRoute(t, "cpu", 64))
	_, s := collect(t, e, context.Background(), rawRequest(strings.Repeat("x", 64), 8))
	if s.FinishReason != reply.FinishError || !errors.Is(s.Err, reply.ErrContextLength) || s.TrimmedMessages != 0 {
		t.Errorf("a prompt of 64 tokens in a context of 64: want ErrContextLength, got %+v", s)
	}
	_, s = collect(t, e, context.Background(), reply.Request{Prompt: &reply.Prompt{IDs: []int{'a', fakeVocab}}, MaxTokens: 2})
	if s.FinishReason != reply.FinishError || s.Err == nil || !strings.Contains(s.Err.Error(), "vocabulary") {
		t.Errorf("an id outside the vocabulary: got %+v", s)
	}
	_, s = collect(t, e, context.Background(), rawRequest("", 2))
	if s.FinishReason != reply.FinishError || s.Err == nil || !strings.Contains(s.Err.Error(), "empty") {
		t.Errorf("an empty prompt: got %+v", s)
	}
	both := rawRequest("a", 2)
	both.Messages = []reply.Message{{Role: "user", Content: "b"}}
	if _, err := e.Generate(context.Background(), both); err == nil {
		t.Error("messages and a prompt together were accepted")
	}
}

// A longer raw prompt that starts with an earlier one and its reply reuses their cache, and a
// chat engine does not warm up a next turn after a completion: the cache is prompt and reply.
func TestRawReuseWithoutWarmUp(t *testing.T) {
	rt := decoderOf(fakeDecoder{next: script(" and then")})
	e := fakeEngine(t, rt, Config{}, fakeRoute(t, "cpu", 512))
	_, first := collect(t, e, context.Background(), rawRequest("It rained", 50))
	e.Settle()
	cached := slices.Clone(rt.last().Cached())
	if want := append(slices.Clone(first.PromptIDs), first.IDs...); !slices.Equal(cached, want) {
		t.Fatalf("cache after a completion holds %d tokens, want its prompt and reply (%d)", len(cached), len(want))
	}
	evs, s := collect(t, e, context.Background(), rawRequest("It rained and then the sun", 50))
	if s.Err != nil {
		t.Fatal(s.Err)
	}
	if want := len("It rained and then"); s.ReusedTokens != want {
		t.Errorf("reused %d tokens, want %d (the earlier prompt and reply)", s.ReusedTokens, want)
	}
	if got, _ := replyText(evs); got != " and then" {
		t.Errorf("answer %q", got)
	}
}

// A request the first of two routes refuses as the request's fault (an id outside the
// vocabulary, a bad logit_bias) comes back as that refusal, and the route goes on serving:
// it has not failed, and the next route is not tried.
func TestRequestFaultKeepsTheRoute(t *testing.T) {
	rt := decoderOf(fakeDecoder{next: script("ok")})
	e := fakeEngine(t, rt, Config{OneShot: true}, fakeRoute(t, "npu", 512), fakeRoute(t, "cpu", 512))
	bias := rawRequest("a", 2)
	bias.Sampling.LogitBias = map[int]float64{'x': 1, fakeVocab: -100}
	for _, req := range []reply.Request{
		{Prompt: &reply.Prompt{IDs: []int{'a', fakeVocab}}, MaxTokens: 2},
		bias,
	} {
		_, s := collect(t, e, context.Background(), req)
		if !reply.RequestFault(s.Err) || s.Backend != "npu" || s.FallbackReason != "" {
			t.Errorf("got %v on %q (fallback %q), want the npu route's refusal", s.Err, s.Backend, s.FallbackReason)
		}
	}
	var pe *reply.ParamError
	if _, s := collect(t, e, context.Background(), bias); !errors.As(s.Err, &pe) || pe.Param != "logit_bias" || !strings.Contains(s.Err.Error(), "vocabulary") {
		t.Errorf("bias on an id outside the vocabulary: %v", s.Err)
	}
	if evs, s := collect(t, e, context.Background(), rawRequest("a", 2)); s.Backend != "npu" || s.Err != nil {
		t.Errorf("after the refusals: %v on %q, want a reply from npu (%v)", s.Err, s.Backend, evs)
	}
}
