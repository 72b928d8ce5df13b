package inference

import (
	"context"
	"errors"
	"fmt"

	"edgechat/reply"

	"edgechat/inference/chat"
)

// conversation is one request's messages with each rendering of them made once and kept: the
// route's prefill-limit check, fitting the context and the prompt share them, and fitting
// works on message indices.
type conversation struct {
	// ctx is the request's: rendering stops when it is done.
	ctx     context.Context
	m       *Model
	msgs    []reply.Message
	opts    turnOptions
	roles   []string
	head    int // leading messages always kept (the system prompt)
	byStart map[int]*promptIDs
	// raw marks a plain completion: byStart[0] is its prompt, never trimmed.
	raw bool
}

// promptIDs is one rendering of a conversation, tokenized.
type promptIDs struct {
	ids        []int
	inThinking bool
}

func (m *Model) conversation(ctx context.Context, msgs []reply.Message, o turnOptions) *conversation {
	roles := make([]string, len(msgs))
	for i, msg := range msgs {
		roles[i] = msg.Role
	}
	return &conversation{ctx: ctx, m: m, msgs: msgs, opts: o, roles: roles, head: chat.Head(roles), byStart: map[int]*promptIDs{}}
}

// request is req's conversation: its messages, or its raw prompt. A reply constrained from
// its first token (a response format, a required tool call) is rendered without reasoning.
func (m *Model) request(ctx context.Context, req reply.Request) *conversation {
	if req.Prompt != nil {
		return m.rawPrompt(req.Prompt)
	}
	o := turnOptions{thinking: req.Thinking && !constrainedFromStart(req)}
	if req.ToolChoice.Mode != reply.ToolNone {
		o.tools = req.Tools
	}
	return m.conversation(ctx, req.Messages, o)
}

// rawPrompt is a plain completion's prompt: the text tokenized as user text (special tokens
// typed in it stay text) with the tokenizer's own special tokens added as tokenizer.json says,
// or the ids as given.
func (m *Model) rawPrompt(p *reply.Prompt) *conversation {
	ids := p.IDs
	if len(ids) == 0 {
		ids = m.Tokenizer.Encode(p.Text)
		if a, ok := m.Tokenizer.(specialAdder); ok {
			ids = a.AddSpecialTokens(ids)
		}
	}
	return &conversation{m: m, raw: true, byStart: map[int]*promptIDs{0: {ids: ids}}}
}

// specialAdder adds the special tokens tokenizer.json's post-processor puts around a text
// (*tokenizer.Pipeline does).
type specialAdder interface {
	AddSpecialTokens(ids []int) []int
}

// fitRaw checks that a raw prompt leaves room for a reply in the context of limit tokens and
// that its ids are the tokenizer's.
func (c *conversation) fitRaw(limit int) (*promptIDs, error) {
	p := c.byStart[0]
	if len(p.ids) == 0 {
		return nil, reply.InvalidPrompt(errors.New("the prompt is empty: give some text to continue"))
	}
	vocab := c.m.Tokenizer.VocabSize()
	for i, id := range p.ids {
		if id < 0 || id >= vocab {
			return nil, reply.InvalidPrompt(fmt.Errorf("token id %d at position %d is not in this model's vocabulary of %d tokens", id, i, vocab))
		}
	}
	if len(p.ids) >= limit {
		return nil, reply.ContextLength(fmt.Errorf("the prompt takes %d tokens but this model's context holds %d, reply included: shorten the prompt", len(p.ids), limit))
	}
	return p, nil
}

// from renders and tokenizes the conversation without the messages between head and start
// (start = head: the whole conversation), once.
func (c *conversation) from(start int) (*promptIDs, error) {
	start = max(start, c.head)
	if p, ok := c.byStart[start]; ok {
		return p, nil
	}
	r, err := c.m.render(c.ctx, c.msgs, c.head, start, c.opts)
	if err != nil {
		return nil, err
	}
	p := &promptIDs{ids: c.m.encode(r.parts), inThinking: r.inThinking}
	c.byStart[start] = p
	return p, nil
}

// all is the whole conversation's prompt.
func (c *conversation) all() (*promptIDs, error) { return c.from(c.head) }

// fit drops the oldest turns until prompt and reply budget fit the context, and returns the
// start of the kept tail (see chat.FitStart) and its prompt.
func (c *conversation) fit(limit, maxTokens int) (int, *promptIDs, error) {
	if c.raw {
		p, err := c.fitRaw(limit)
		return 0, p, err
	}
	if len(c.msgs) == 0 {
		return 0, nil, errors.New("the conversation is empty")
	}
	start, err := chat.FitStart(c.roles, limit, replyReserve(maxTokens, limit), func(start int) (int, error) {
		p, err := c.from(start)
		if err != nil {
			return 0, err
		}
		return len(p.ids), nil
	})
	if errors.Is(err, chat.ErrTooLong) {
		return 0, nil, reply.ContextLength(err)
	}
	if err != nil {
		return 0, nil, err
	}
	p, err := c.from(start)
	return start, p, err
}

// kept is the conversation without the messages fit dropped.
func (c *conversation) kept(start int) []reply.Message {
	out := make([]reply.Message, 0, c.head+len(c.msgs)-start)
	out = append(out, c.msgs[:c.head]...)
	return append(out, c.msgs[max(start, c.head):]...)
}

// replyReserve is the room kept for the reply when fitting a prompt: the reply budget, but
// never more than half the context.
func replyReserve(maxTokens, context int) int {
	if maxTokens <= 0 {
		maxTokens = reply.DefaultMaxTokens
	}
	return min(maxTokens, context/2)
}
