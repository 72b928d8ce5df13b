package ui

import (
	"fmt"
	"strings"
	"sync"

	"edgechat/reply"

	"fyne.io/fyne/v2/data/binding"

	"edgechat/history"
)

// DocVM is a Markdown document that grows: settled blocks (append-only, counted by Settled,
// read with Block) and the open Tail. One goroutine appends at a time (the stream goroutine
// while a reply streams). Settled is a count rather than a binding.List because a list
// re-sets every item on each append, which would make the cost grow with the reply.
type DocVM struct {
	Settled binding.Int
	Tail    binding.Item[Block]

	mu     sync.Mutex
	split  *Splitter
	blocks []Block
}

// Block returns settled block i (0 ≤ i < Settled).
func (d *DocVM) Block(i int) Block {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.blocks[i]
}

func newDocVM(text string) *DocVM {
	d := &DocVM{
		Settled: binding.NewInt(),
		Tail:    binding.NewItem(func(a, b Block) bool { return a == b }),
		split:   NewSplitter(),
	}
	if text != "" {
		d.Append(text)
		d.Close()
	}
	return d
}

// Append adds streamed text; its cost does not depend on the length of the document.
func (d *DocVM) Append(s string) {
	if s == "" {
		return
	}
	d.mu.Lock()
	settled := d.split.Add(s)
	d.blocks = append(d.blocks, settled...)
	n := len(d.blocks)
	tail := d.split.Tail()
	d.mu.Unlock()
	if len(settled) > 0 {
		_ = d.Settled.Set(n)
	}
	_ = d.Tail.Set(tail)
}

// Close settles the tail (the document is complete).
func (d *DocVM) Close() {
	d.mu.Lock()
	settled := d.split.Close()
	d.blocks = append(d.blocks, settled...)
	n := len(d.blocks)
	d.mu.Unlock()
	if len(settled) > 0 {
		_ = d.Settled.Set(n)
	}
	_ = d.Tail.Set(Block{})
}

// Text returns the whole document.
func (d *DocVM) Text() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.split.Text()
}

// MessageVM is one bubble of the transcript.
type MessageVM struct {
	ID       string
	Role     string // "user" or "assistant"
	complete bool   // a base model continued the text (each message a new start)

	Answer       *DocVM
	Thinking     *DocVM
	ThinkingOpen binding.Bool
	HasThinking  binding.Bool
	Status       binding.String // progress before the first token ("Loading model…")
	Streaming    binding.Bool
	Backend      binding.String // badge: "NPU", "CPU", "Remote"
	Footer       binding.String // "24.1 tok/s · first token 0.31 s · 212 tokens"
	Details      binding.String // prompt/reused tokens, device, finish reason
	Notes        binding.String // context trimmed, fallback, stopped
	Error        binding.String
	// Sources are the document passages the reply was given (sources.go shows them).
	Sources binding.List[history.Source]
	// Ranking says how they were chosen (keywords, meaning, reranker); "" when given whole.
	Ranking binding.String
	// ToolCalls are the tools the reply called, in order.
	ToolCalls binding.List[*ToolCallVM]

	mu    sync.Mutex
	notes []string
}

func newMessageVM(m history.Message) *MessageVM { return newMessageVMIn(m, false) }

// newMessageVMIn is newMessageVM for a message of a chat that completes text (complete: a
// base model continued the text; its notes say so).
func newMessageVMIn(m history.Message, complete bool) *MessageVM {
	vm := &MessageVM{
		complete: complete,
		ID:       m.ID, Role: m.Role,
		Answer:       newDocVM(m.Content),
		Thinking:     newDocVM(m.Thinking),
		ThinkingOpen: binding.NewBool(),
		HasThinking:  binding.NewBool(),
		Status:       binding.NewString(),
		Streaming:    binding.NewBool(),
		Backend:      binding.NewString(),
		Footer:       binding.NewString(),
		Details:      binding.NewString(),
		Notes:        binding.NewString(),
		Error:        binding.NewString(),
		Sources:      binding.NewList(func(a, b history.Source) bool { return a == b }),
		Ranking:      binding.NewString(),
		ToolCalls:    binding.NewList(func(a, b *ToolCallVM) bool { return a == b }),
	}
	_ = vm.Sources.Set(m.Sources)
	_ = vm.Ranking.Set(m.Ranking)
	for _, r := range m.ToolCalls {
		_ = vm.ToolCalls.Append(savedToolCall(r))
	}
	_ = vm.HasThinking.Set(m.Thinking != "")
	if m.Stats != nil {
		vm.showStats(m.Stats)
	}
	return vm
}

// Text returns what Copy puts on the clipboard: the answer (or the user's text).
func (m *MessageVM) Text() string { return m.Answer.Text() }

func (m *MessageVM) addNote(n string) {
	m.mu.Lock()
	for _, old := range m.notes {
		if old == n {
			m.mu.Unlock()
			return
		}
	}
	m.notes = append(m.notes, n)
	all := strings.Join(m.notes, "\n")
	m.mu.Unlock()
	_ = m.Notes.Set(all)
}

// showStats fills the footer from a finished reply's statistics.
func (m *MessageVM) showStats(s *history.Stats) {
	_ = m.Backend.Set(backendLabel(s.Backend))
	m.mu.Lock()
	engineNoted := len(m.notes) > 0 // the engine's own notices already told the story
	m.mu.Unlock()
	var parts []string
	if s.Model != "" {
		parts = append(parts, s.Model)
	}
	if s.TokensPerSec > 0 {
		parts = append(parts, fmt.Sprintf("%.1f tok/s", s.TokensPerSec))
	}
	if s.TTFTMillis > 0 {
		parts = append(parts, "first token "+formatMillis(s.TTFTMillis))
	}
	parts = append(parts, plural(s.Tokens, "token"))
	_ = m.Footer.Set(strings.Join(parts, " · "))

	var d []string
	d = append(d, fmt.Sprintf("Prompt: %s, %d reused from the cache", plural(s.PromptTokens, "token"), s.ReusedTokens))
	if s.PrefillTPS > 0 {
		d = append(d, fmt.Sprintf("Prefill: %.0f tok/s", s.PrefillTPS))
	}
	if s.LookupDrafted > 0 {
		d = append(d, fmt.Sprintf("Prompt lookup: %d of %d drafted tokens kept (%.0f%%), %s for %s",
			s.LookupAccepted, s.LookupDrafted, 100*float64(s.LookupAccepted)/float64(s.LookupDrafted),
			plural(s.LookupRuns, "decoder run"), plural(s.Tokens, "token")))
	}
	if s.Device != "" {
		d = append(d, "Device: "+s.Device)
	}
	if s.Power != "" {
		d = append(d, "Power: "+s.Power)
	}
	if w := endWords(s); w != "" {
		d = append(d, "Ended: "+w)
	}
	_ = m.Details.Set(strings.Join(d, "\n"))

	if s.TrimmedMessages > 0 && !engineNoted {
		m.addNote(fmt.Sprintf("Context trimmed: %s dropped to fit the model's window", plural(s.TrimmedMessages, "oldest message")))
	}
	if s.FallbackReason != "" && !engineNoted {
		m.addNote(fmt.Sprintf("Served by %s instead of the NPU: %s", backendLabel(s.Backend), s.FallbackReason))
	}
	switch {
	case s.FinishReason == reply.FinishLength && s.StopCause == reply.StopContext:
		if m.complete { // each message is a new start: no chat to start again
			m.addNote(fmt.Sprintf("Stopped: your text and its continuation filled the model's %s context — send a shorter text, or use a model with a longer context",
				tokenCount(s.ContextTokens)))
		} else {
			m.addNote(fmt.Sprintf("Stopped: the conversation filled the model's %s context — start a new chat to go on, or use a model with a longer context",
				tokenCount(s.ContextTokens)))
		}
	case s.FinishReason == reply.FinishLength && s.StopCause == reply.StopMaxTokens:
		m.addNote("Stopped at Max tokens — raise Max tokens in Settings for longer replies")
	case s.FinishReason == reply.FinishLength:
		// Saved before the cause was kept, or from a remote server: either limit.
		m.addNote("Stopped at a length limit — Max tokens in Settings, or the model's context")
	case s.FinishReason == reply.FinishCancelled:
		m.addNote("Stopped")
	}
	if s.Error != "" {
		_ = m.Error.Set(s.Error)
	}
}

// endWords says how a reply ended, for its details.
func endWords(s *history.Stats) string {
	switch s.FinishReason {
	case "":
		return ""
	case reply.FinishStop:
		if s.StopCause == reply.StopString {
			return "at a stop string"
		}
		return "the model finished its reply"
	case reply.FinishLength:
		switch s.StopCause {
		case reply.StopContext:
			return "the model's " + tokenCount(s.ContextTokens) + " context was full"
		case reply.StopMaxTokens:
			return "Max tokens reached"
		}
		return "a length limit (Max tokens or the model's context)"
	case reply.FinishCancelled:
		return "stopped"
	case reply.FinishError:
		return "an error"
	case reply.FinishToolCalls:
		return "a tool call"
	}
	return s.FinishReason
}

// tokenCount is "512-token" (or "its" when unknown, as in "its context").
func tokenCount(n int) string {
	if n <= 0 {
		return "whole"
	}
	return fmt.Sprintf("%d-token", n)
}

// statsFrom turns an engine summary into what history keeps.
func statsFrom(s *reply.Summary) *history.Stats {
	st := &history.Stats{
		Backend: s.Backend, Device: s.Device, FallbackReason: s.FallbackReason,
		FinishReason: s.FinishReason, StopCause: s.StopCause, Model: s.Model, ContextTokens: s.ContextTokens, Error: s.ErrorText(),
		PromptTokens: s.PromptTokens, Tokens: s.GeneratedTokens, ReusedTokens: s.ReusedTokens,
		TrimmedMessages: s.TrimmedMessages, Power: s.Power.Label(),
		TTFTMillis: s.TTFTMillis(), TokensPerSec: s.DecodeTPS, PrefillTPS: s.PrefillTPS,
	}
	if l := s.Lookup; l != nil {
		st.LookupDrafted, st.LookupAccepted, st.LookupRuns = l.Drafted, l.Accepted, l.Runs
	}
	return st
}

func backendLabel(b string) string {
	switch strings.ToLower(b) {
	case "npu":
		return "NPU"
	case "cpu":
		return "CPU"
	case "remote":
		return "Remote"
	case "":
		return ""
	}
	return strings.ToUpper(b)
}

func formatMillis(ms float64) string {
	if ms < 1000 {
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.2f s", ms/1000)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// addToolCall shows a tool call of the reply.
func (vm *MessageVM) addToolCall(t *ToolCallVM) { _ = vm.ToolCalls.Append(t) }
