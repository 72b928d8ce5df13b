package inference

import (
	"fmt"
	"strconv"
	"strings"

	"edgechat/reply"

	"edgechat/inference/chat"
	"edgechat/inference/think"
	"edgechat/inference/tokenizer"
)

// Prompt rendering keeps what a person typed away from the special-token matcher: user and
// system bodies are rendered as private-use markers, the template's own text is tokenized
// with special tokens and the bodies as plain text, joined so that pre-tokenization sees the
// same text it would see in the fully rendered prompt.

const markOpen, markClose = "\uE000", "\uE001"

func marker(i int) string { return fmt.Sprintf("%s%d%s", markOpen, i, markClose) }

// chatMessages converts messages for the template; with protect set, user and system bodies
// become markers.
func chatMessages(msgs []reply.Message, protect bool) []chat.Message {
	out := make([]chat.Message, len(msgs))
	for i, m := range msgs {
		c := chat.Message{Role: m.Role, Content: m.Content, ReasoningContent: m.Thinking}
		if protect && (m.Role == "user" || m.Role == "system") && !strings.Contains(m.Content, markOpen) {
			c.Content = marker(i)
		}
		out[i] = c
	}
	return out
}

func (m *Model) renderOptions(thinking bool) chat.Options {
	return chat.Options{AddGenerationPrompt: true, EnableThinking: &thinking, BOS: m.bos, EOS: m.eosText}
}

// RenderPrompt renders the conversation as the model sees it (for --print-prompt).
func (m *Model) RenderPrompt(msgs []reply.Message, thinking bool) (string, error) {
	return m.Template.Render(chatMessages(msgs, false), m.renderOptions(thinking))
}

// PromptIDs renders and tokenizes the conversation, message bodies as plain text.
func (m *Model) PromptIDs(msgs []reply.Message, thinking bool) ([]int, error) {
	ids, _, err := m.promptIDs(msgs, thinking)
	return ids, err
}

// promptIDs is PromptIDs that also reports whether the rendered prompt leaves the model
// inside a <think> block (some templates open it for the model).
func (m *Model) promptIDs(msgs []reply.Message, thinking bool) (ids []int, inThinking bool, err error) {
	text, err := m.Template.Render(chatMessages(msgs, true), m.renderOptions(thinking))
	if err != nil {
		return nil, false, err
	}
	inThinking = strings.HasSuffix(strings.TrimRight(text, "\n"), think.OpenTag)
	var parts []tokenizer.Part
	for text != "" {
		i := strings.Index(text, markOpen)
		if i < 0 {
			parts = append(parts, tokenizer.Part{Text: text, Special: true})
			break
		}
		j := strings.Index(text[i:], markClose)
		idx := -1
		if j > 0 {
			if n, err := strconv.Atoi(text[i+len(markOpen) : i+j]); err == nil {
				idx = n
			}
		}
		if idx < 0 || idx >= len(msgs) {
			return nil, false, fmt.Errorf("the chat template changed a message body; cannot tokenize the prompt safely")
		}
		if i > 0 {
			parts = append(parts, tokenizer.Part{Text: text[:i], Special: true})
		}
		parts = append(parts, tokenizer.Part{Text: msgs[idx].Content})
		text = text[i+j+len(markClose):]
	}
	return m.Tokenizer.(partsEncoder).EncodeParts(parts), inThinking, nil
}

// partsEncoder encodes a text made of pieces that may or may not hold special tokens.
type partsEncoder interface {
	EncodeParts(parts []tokenizer.Part) []int
}
