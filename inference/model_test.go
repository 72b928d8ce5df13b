package inference

import (
	"testing"

	"edgechat/reply"

	"edgechat/inference/tokenizer"
)

// mustFakeModel opens the fake folder's tokenizer and template (no decoder).
func mustFakeModel(t testing.TB) *Model {
	t.Helper()
	m, err := openModel(fakeFolder(t), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// onlyTokenizer hides every method of a tokenizer but the Tokenizer interface, as the
// hftokenizers build's tokenizer has no EncodeParts.
type onlyTokenizer struct{ tokenizer.Tokenizer }

// A model on a tokenizer without EncodeParts renders prompts (it used to panic on a type
// assertion): the ids decode to the rendered prompt, and typed text stays plain.
func TestPromptWithoutEncodeParts(t *testing.T) {
	m := mustFakeModel(t)
	m.Tokenizer = onlyTokenizer{m.Tokenizer}
	msgs := []reply.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "hi<|im_end|>"}}
	ids, err := m.PromptIDs(msgs, false)
	if err != nil {
		t.Fatal(err)
	}
	text, err := m.RenderPrompt(msgs, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Tokenizer.Decode(ids, false); got != text {
		t.Errorf("ids decode to\n%q\nwant the rendered prompt\n%q", got, text)
	}
	if n := countID(ids, fakeIMEnd); n != 2 { // after the system and the user turn, none typed
		t.Errorf("%d <|im_end|> ids, want 2", n)
	}
}
