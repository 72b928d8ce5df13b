package decoder

import (
	"context"
	"slices"
	"testing"

	"edgechat/inference"
	"edgechat/internal/testkit/testenv"
	"edgechat/reply"
)

// The real trained stories260K model continues "Once upon a time" greedily with the text and
// ids its README gives: tokenizer (BOS added as tokenizer.json says), graph, KV cache and
// streaming decode (the first space kept) together.
func TestStoriesRawCompletion(t *testing.T) {
	initORT(t)
	e := newTestEngine(t, testenv.SharedModel(t, "stories260K"), func(rc *inference.RouteConfig) { rc.LoadOptions.MaxContext = 256 })
	req := reply.Request{Prompt: &reply.Prompt{Text: testenv.StoriesPrompt}, MaxTokens: len(testenv.StoriesIDs), Sampling: reply.Sampling{Temperature: ptr(0.0)}}
	evs, s := collect(t, e, context.Background(), req)
	if s.Err != nil {
		t.Fatal(s.Err)
	}
	if !slices.Equal(s.PromptIDs, testenv.StoriesPromptIDs) {
		t.Errorf("prompt ids %v, want %v", s.PromptIDs, testenv.StoriesPromptIDs)
	}
	if !slices.Equal(s.IDs, testenv.StoriesIDs) {
		t.Errorf("ids %v,\nwant %v", s.IDs, testenv.StoriesIDs)
	}
	if got, _ := replyText(evs); got != testenv.StoriesText {
		t.Errorf("text %q,\nwant %q", got, testenv.StoriesText)
	}
	// The same prompt as ids, again: the cache holds it, and the reply is the same.
	req.Prompt = &reply.Prompt{IDs: testenv.StoriesPromptIDs}
	_, again := collect(t, e, context.Background(), req)
	if again.ReusedTokens != len(testenv.StoriesPromptIDs)-1 || !slices.Equal(again.IDs, testenv.StoriesIDs) {
		t.Errorf("the prompt as ids: reused %d tokens, ids %v", again.ReusedTokens, again.IDs)
	}
}
