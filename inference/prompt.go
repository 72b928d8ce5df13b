package inference

import (
	"fmt"
	"strconv"
	"strings"

	"edgechat/reply"

	"edgechat/inference/chat"
	"edgechat/inference/think"
	"edgechat/inference/toolcall"
	"edgechat/tokenizer"
)

// Prompt rendering keeps what a person typed away from the special-token matcher: user and
// system bodies are rendered as private-use markers, the template's own text is tokenized
// with special tokens and the bodies as plain text, joined so that pre-tokenization sees the
// same text it would see in the fully rendered prompt.

//
// Templates that trim a message (Llama 2's .strip(), Gemma's | trim) cannot trim a marker, so
// each marker is padded on both sides with a whitespace character no template writes: a pad
// still beside the marker after rendering says that side was not trimmed; a pad gone says it
// was, and the body goes in trimmed on that side as the template would have trimmed it.

const markOpen, markClose = "\uE000", "\uE001"

// markPad is Python whitespace (U+2029 PARAGRAPH SEPARATOR) that strip() and trim remove.
const markPad = "\u2029"

// markQuote ends the marker of a tool result: a template that prints the result through
// tojson (Llama 3's) turns it into \" and so shows the body goes in JSON-encoded.
const markQuote = `"`

func marker(i int) string { return fmt.Sprintf("%s%s%d%s%s", markPad, markOpen, i, markClose, markPad) }

func toolMarker(i int) string {
	return fmt.Sprintf("%s%s%d%s%s%s", markPad, markOpen, i, markQuote, markClose, markPad)
}

// turnOptions are what a conversation is rendered with besides its messages.
type turnOptions struct {
	thinking bool
	// tools are shown to the model (none when the request offers none or forbids calls).
	tools []reply.Tool
}

// chatMessages converts the kept messages for the template: msgs[:head] and msgs[start:]
// (start ≤ head keeps them all). With protect set, user, system and tool bodies become
// markers that name their index in msgs; a blank body (empty or whitespace) holds no special
// token and stays as it is, so templates that skip an empty message or trim into their own
// text render it as they would. Tool calls and results carry their keys (ids as the template
// may print them); where the template reads tools from the system message, or shows calls only
// as text, they go there.
func (m *Model) chatMessages(msgs []reply.Message, head, start int, protect bool, o turnOptions) []chat.Message {
	start = max(start, head)
	out := make([]chat.Message, 0, head+len(msgs)-start+1)
	sysTools := m.systemTools(o.tools)
	for i, msg := range msgs {
		if i >= head && i < start {
			continue
		}
		c := chat.Message{Role: msg.Role, Content: msg.Content, ReasoningContent: msg.Thinking, Name: msg.Name}
		if msg.ToolCallID != "" {
			c.ToolCallID = toolcall.TemplateID(msg.ToolCallID)
		}
		if protect && (msg.Role == "user" || msg.Role == "system" || msg.Role == "tool") && !strings.Contains(msg.Content, markOpen) && !blank(msg.Content) {
			c.Content = marker(i)
			if msg.Role == "tool" {
				c.Content = toolMarker(i)
			}
		}
		if len(msg.ToolCalls) > 0 {
			if m.callsAsText() {
				c.Content += m.toolFormat.Text(msg.ToolCalls)
			} else {
				for _, tc := range msg.ToolCalls {
					c.ToolCalls = append(c.ToolCalls, chat.ToolCall{ID: toolcall.TemplateID(tc.ID), Name: tc.Name, Arguments: toolcall.Arguments(tc.Arguments)})
				}
			}
		}
		if sysTools != "" && msg.Role == "system" && len(out) == 0 {
			c.Tools, sysTools = sysTools, ""
		}
		out = append(out, c)
	}
	if sysTools != "" { // a template that reads tools from the system message gets one
		out = append([]chat.Message{{Role: "system", Tools: sysTools}}, out...)
	}
	return out
}

// blank reports whether s is empty or only whitespace.
func blank(s string) bool { return strings.TrimFunc(s, chat.IsSpace) == "" }

func (m *Model) renderOptions(o turnOptions) chat.Options {
	thinking := o.thinking
	opt := chat.Options{AddGenerationPrompt: true, EnableThinking: &thinking, BOS: m.bos, EOS: m.eosText}
	if m.systemTools(o.tools) == "" {
		for _, t := range o.tools {
			opt.Tools = append(opt.Tools, toolDocument(t))
		}
	}
	return opt
}

// RenderPrompt renders the conversation as the model sees it (for --print-prompt).
func (m *Model) RenderPrompt(msgs []reply.Message, thinking bool) (string, error) {
	o := turnOptions{thinking: thinking}
	return m.Template.Render(m.chatMessages(msgs, 0, 0, false, o), m.renderOptions(o))
}

// PromptIDs renders and tokenizes the conversation, message bodies as plain text.
func (m *Model) PromptIDs(msgs []reply.Message, thinking bool) ([]int, error) {
	r, err := m.render(msgs, 0, 0, turnOptions{thinking: thinking})
	if err != nil {
		return nil, err
	}
	return m.encode(r.parts), nil
}

// rendered is a conversation rendered by the chat template once: the template's text as
// Special parts and the protected message bodies as plain parts between them.
type rendered struct {
	parts []tokenizer.Part
	// body[i] is the message whose body parts[i] holds, or -1 for the template's text.
	body []int
	// inThinking says the prompt leaves the model inside a <think> block (some templates
	// open it for the model).
	inThinking bool
}

// render renders the kept messages, msgs[:head] and msgs[start:], with user, system and tool
// bodies protected from special-token matching.
func (m *Model) render(msgs []reply.Message, head, start int, o turnOptions) (*rendered, error) {
	return m.renderProtected(msgs, m.chatMessages(msgs, head, start, true, o), m.renderOptions(o))
}

// renderProtected renders cms, the protected form of msgs, with opt, and splits the text into
// the template's parts and the message bodies.
func (m *Model) renderProtected(msgs []reply.Message, cms []chat.Message, opt chat.Options) (*rendered, error) {
	text, err := m.Template.Render(cms, opt)
	if err != nil {
		return nil, err
	}
	r := &rendered{inThinking: strings.HasSuffix(strings.TrimRight(text, "\n"), think.OpenTag)}
	add := func(p tokenizer.Part, body int) {
		r.parts = append(r.parts, p)
		r.body = append(r.body, body)
	}
	for text != "" {
		i := strings.Index(text, markOpen)
		if i < 0 {
			add(tokenizer.Part{Text: text, Special: true}, -1)
			break
		}
		j := strings.Index(text[i:], markClose)
		idx, jsonBody := -1, false
		if j > 0 {
			num := text[i+len(markOpen) : i+j]
			if n, ok := strings.CutSuffix(num, `\`+markQuote); ok {
				num, jsonBody = n, true
			} else {
				num = strings.TrimSuffix(num, markQuote)
			}
			if n, err := strconv.Atoi(num); err == nil {
				idx = n
			}
		}
		if idx < 0 || idx >= len(msgs) {
			return nil, fmt.Errorf("the chat template changed a message body; cannot tokenize the prompt safely")
		}
		before, after := text[:i], text[i+j+len(markClose):]
		body := msgs[idx].Content
		if jsonBody { // the template printed the body with tojson
			body = pyJSONString(body)
		}
		if b, ok := strings.CutSuffix(before, markPad); ok {
			before = b
		} else { // the template trimmed the body's start
			body = strings.TrimLeftFunc(body, chat.IsSpace)
		}
		if a, ok := strings.CutPrefix(after, markPad); ok {
			after = a
		} else { // and its end
			body = strings.TrimRightFunc(body, chat.IsSpace)
		}
		if before != "" {
			add(tokenizer.Part{Text: before, Special: true}, -1)
		}
		add(tokenizer.Part{Text: body}, idx)
		text = after
	}
	return r, nil
}

// partsEncoder encodes a text made of pieces that may or may not hold special tokens
// (*tokenizer.Pipeline does).
type partsEncoder interface {
	EncodeParts(parts []tokenizer.Part) []int
}

// encode tokenizes rendered parts. A tokenizer without EncodeParts (the hftokenizers build)
// encodes each part on its own: the template's text with special tokens, bodies without, so
// typed text still cannot inject a special token; only where a body meets the template's
// text may the ids differ from the reference's (a token that would span the boundary).
func (m *Model) encode(parts []tokenizer.Part) []int {
	if pe, ok := m.Tokenizer.(partsEncoder); ok {
		return pe.EncodeParts(parts)
	}
	var ids []int
	for _, p := range parts {
		if p.Special {
			ids = append(ids, m.Tokenizer.EncodeSpecial(p.Text)...)
		} else {
			ids = append(ids, m.Tokenizer.Encode(p.Text)...)
		}
	}
	return ids
}
