package chat

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/models"
)

func TestFromPromptTemplate(t *testing.T) {
	phi := models.PromptTemplate{System: "<|system|>\n{Content}<|end|>", User: "<|user|>\n{Content}<|end|>",
		Assistant: "<|assistant|>\n{Content}<|end|>", Prompt: "<|user|>\n{Content}<|end|>\n<|assistant|>"}
	qwenNoSystem := models.PromptTemplate{User: "<|im_start|>user\n{Content}<|im_end|>",
		Assistant: "<|im_start|>assistant\n{Content}<|im_end|>", Prompt: "<|im_start|>user\n{Content}<|im_end|>\n<|im_start|>assistant"}
	chatMLNewlines := models.PromptTemplate{System: "<|im_start|>system\n{Content}<|im_end|>\n", User: "<|im_start|>user\n{Content}<|im_end|>\n",
		Assistant: "<|im_start|>assistant\n{Content}<|im_end|>\n", Prompt: "<|im_start|>user\n{Content}<|im_end|>\n<|im_start|>assistant\n"}
	tests := []struct {
		name   string
		tpl    models.PromptTemplate
		msgs   []Message
		genOff bool
		want   string
	}{
		{"phi system user", phi, []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}}, false,
			"<|system|>\nBe brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>"},
		{"phi multi turn", phi, []Message{{Role: "user", Content: "2+2?"}, {Role: "assistant", Content: "4"}, {Role: "user", Content: "{Content} stays"}}, false,
			"<|user|>\n2+2?<|end|>\n<|assistant|>\n4<|end|>\n<|user|>\n{Content} stays<|end|>\n<|assistant|>"},
		{"phi without generation prompt", phi, []Message{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}}, true,
			"<|user|>\na<|end|>\n<|assistant|>\nb<|end|>"},
		{"last turn not the user's", phi, []Message{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}}, false,
			"<|user|>\na<|end|>\n<|assistant|>\nb<|end|>\n<|assistant|>\n"},
		{"entries ending in a newline get no second one", chatMLNewlines, []Message{{Role: "system", Content: "S"}, {Role: "user", Content: "U"}}, false,
			"<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"},
		{"system without an entry joins the user text", qwenNoSystem, []Message{{Role: "system", Content: "S"}, {Role: "user", Content: "U"}}, false,
			"<|im_start|>user\nS\n\nU<|im_end|>\n<|im_start|>assistant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := FromPromptTemplate(tt.tpl)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tpl.Render(tt.msgs, Options{AddGenerationPrompt: !tt.genOff})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Render (-want +got):\n%s", diff)
			}
			if tpl.IsFallback() {
				t.Error("a model's own PromptTemplate is not the fallback")
			}
		})
	}
	for name, c := range map[string]struct {
		tpl  models.PromptTemplate
		msgs []Message
	}{
		"tool role":            {phi, []Message{{Role: "tool", Content: "{}"}}},
		"no user entry":        {models.PromptTemplate{Prompt: "{Content}", Assistant: "{Content}"}, []Message{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}, {Role: "user", Content: "c"}}},
		"lone system":          {qwenNoSystem, []Message{{Role: "system", Content: "S"}}},
		"no assistant opening": {models.PromptTemplate{Prompt: "{Content}"}, nil},
	} {
		tpl, err := FromPromptTemplate(c.tpl)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tpl.Render(c.msgs, Options{AddGenerationPrompt: true}); !errors.Is(err, ErrTemplate) {
			t.Errorf("%s: error %v, want ErrTemplate", name, err)
		}
	}
	if _, err := FromPromptTemplate(models.PromptTemplate{User: "{Content}"}); !errors.Is(err, ErrTemplate) {
		t.Errorf("no prompt entry: error %v, want ErrTemplate", err)
	}
}
