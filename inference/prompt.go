package inference

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"edgechat/reply"

	"edgechat/inference/chat"
	"edgechat/inference/think"
	"edgechat/inference/toolcall"
	"edgechat/tokenizer"
)

// Prompt rendering keeps what a person typed away from the special-token matcher: user, system
// and tool bodies are rendered as private-use markers, the template's own text is tokenized
// with special tokens and the bodies as plain text, joined so that pre-tokenization sees the
// same text it would see in the fully rendered prompt.
//
// A message, a document or a tool's text may hold any character, the private-use ones
// included, so a marker's opening is chosen for each rendering: one that occurs in none of its
// inputs nor in the template (markers). A marker is then found only where a body went.
//
// Templates that trim a message (Llama 2's .strip(), Gemma's | trim) cannot trim a marker, so
// each marker is padded on both sides with a whitespace character no template writes: a pad
// still beside the marker after rendering says that side was not trimmed; a pad gone says it
// was, and the body goes in trimmed on that side as the template would have trimmed it.

// markBase opens a marker when no input holds it (nearly always); markClose ends it.
const markBase, markClose = "\uE000", "\uE001"

// markPad is Python whitespace (U+2029 PARAGRAPH SEPARATOR) that strip() and trim remove.
const markPad = "\u2029"

// markQuote ends the marker of a tool result: a template that prints the result through
// tojson (Llama 3's) turns it into \" and so shows the body goes in JSON-encoded.
const markQuote = `"`

// markers are the marker strings of one rendering.
type markers struct {
	// open begins each marker; it occurs in none of the rendering's inputs.
	open string
}

// newMarkers picks a marker opening that inputs (all the text a rendering puts in, the
// template's included) does not hold: markBase, else markBase followed by random private-use
// characters. Neither the template nor the conversation can then forge or break a marker.
func newMarkers(inputs string) markers {
	open := markBase
	for n := 0; strings.Contains(inputs, open); n++ {
		var b strings.Builder
		b.WriteString(markBase)
		for range 3 + n/8 {
			b.WriteRune(0xE002 + rand.Int32N(0xF8FF-0xE002+1))
		}
		open = b.String()
	}
	return markers{open: open}
}

func (k markers) body(i int) string {
	return fmt.Sprintf("%s%s%d%s%s", markPad, k.open, i, markClose, markPad)
}

func (k markers) tool(i int) string {
	return fmt.Sprintf("%s%s%d%s%s%s", markPad, k.open, i, markQuote, markClose, markPad)
}

// turnOptions are what a conversation is rendered with besides its messages.
type turnOptions struct {
	thinking bool
	// tools are shown to the model (none when the request offers none or forbids calls).
	tools []reply.Tool
}

// chatMessages converts the kept messages for the template: msgs[:head] and msgs[start:]
// (start ≤ head keeps them all). With k set, user, system and tool bodies become markers
// that name their index in msgs; a blank body (empty or whitespace) holds no special
// token and stays as it is, so templates that skip an empty message or trim into their own
// text render it as they would. Tool calls and results carry their keys (ids as the template
// may print them); where the template reads tools from the system message, or shows calls only
// as text, they go there.
func (m *Model) chatMessages(msgs []reply.Message, head, start int, k *markers, o turnOptions) []chat.Message {
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
		if k != nil && (msg.Role == "user" || msg.Role == "system" || msg.Role == "tool") && !blank(msg.Content) {
			c.Content = k.body(i)
			if msg.Role == "tool" {
				c.Content = k.tool(i)
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

// RenderPrompt renders the conversation as the model sees it (for --print-prompt): the text the
// engine tokenizes, or the error that stops a reply.
func (m *Model) RenderPrompt(msgs []reply.Message, thinking bool) (string, error) {
	r, err := m.render(context.Background(), msgs, 0, 0, turnOptions{thinking: thinking})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range r.parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// PromptIDs renders and tokenizes the conversation, message bodies as plain text.
func (m *Model) PromptIDs(msgs []reply.Message, thinking bool) ([]int, error) {
	r, err := m.render(context.Background(), msgs, 0, 0, turnOptions{thinking: thinking})
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
// bodies protected from special-token matching; it stops when ctx is done.
func (m *Model) render(ctx context.Context, msgs []reply.Message, head, start int, o turnOptions) (*rendered, error) {
	return m.renderProtected(ctx, msgs, head, start, o, m.renderOptions(o))
}

// renderProtected renders the kept messages with opt, their bodies as markers, and splits the
// text into the template's parts and the message bodies.
func (m *Model) renderProtected(ctx context.Context, msgs []reply.Message, head, start int, o turnOptions, opt chat.Options) (*rendered, error) {
	k := newMarkers(renderInputs(m.chatMessages(msgs, head, start, nil, o), opt, m.Template.Source()))
	text, err := m.Template.RenderContext(ctx, m.chatMessages(msgs, head, start, &k, o), opt)
	if err != nil {
		return nil, err
	}
	r := &rendered{inThinking: strings.HasSuffix(strings.TrimRight(text, "\n"), think.OpenTag)}
	add := func(p tokenizer.Part, body int) {
		r.parts = append(r.parts, p)
		r.body = append(r.body, body)
	}
	for text != "" {
		i := strings.Index(text, k.open)
		if i < 0 {
			add(tokenizer.Part{Text: text, Special: true}, -1)
			break
		}
		idx, jsonBody, n := k.parse(text[i:])
		if idx < 0 || idx >= len(msgs) {
			return nil, fmt.Errorf("the chat template changed a message body (it printed %q where the message goes), so the typed text cannot be kept apart from the template's special tokens: the prompt cannot be tokenized safely — the model's chat template cuts or rewrites message text", visible(text[i:], k))
		}
		before, after := text[:i], text[i+n:]
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

// parse reads the marker that s begins with: the message index, whether the template printed
// it JSON-encoded, and the marker's length (without its pads); idx is -1 when s does not hold a
// whole marker (the template cut or changed it).
func (k markers) parse(s string) (idx int, jsonBody bool, n int) {
	rest := s[len(k.open):]
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if digits == 0 || digits > 9 {
		return -1, false, 0
	}
	idx, _ = strconv.Atoi(rest[:digits])
	rest = rest[digits:]
	if r, ok := strings.CutPrefix(rest, `\`+markQuote); ok {
		rest, jsonBody = r, true
	} else {
		rest = strings.TrimPrefix(rest, markQuote)
	}
	if !strings.HasPrefix(rest, markClose) {
		return -1, false, 0
	}
	return idx, jsonBody, len(s) - len(rest) + len(markClose)
}

// visible is the start of a broken marker for an error message, the marker's characters named.
func visible(s string, k markers) string {
	s = strings.Replace(s, k.open, "<body ", 1)
	s = strings.Replace(s, markClose, ">", 1)
	if r := []rune(s); len(r) > 24 {
		s = string(r[:24]) + "…"
	}
	return s
}

// renderInputs is all the text a rendering puts into the template, and the template's own,
// for newMarkers; NUL separates the pieces so no marker can span two.
func renderInputs(cms []chat.Message, opt chat.Options, source string) string {
	var b strings.Builder
	add := func(s ...string) {
		for _, p := range s {
			b.WriteString(p)
			b.WriteByte(0)
		}
	}
	add(source, opt.BOS, opt.EOS)
	for _, t := range opt.Tools {
		switch t := t.(type) {
		case json.RawMessage:
			add(string(t))
		case []byte:
			add(string(t))
		case string:
			add(t)
		default:
			add(fmt.Sprint(t))
		}
	}
	for _, c := range cms {
		add(c.Role, c.Content, c.ReasoningContent, c.ToolCallID, c.Name, c.Tools)
		for _, tc := range c.ToolCalls {
			add(tc.ID, tc.Name, string(tc.Arguments))
		}
	}
	return b.String()
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
