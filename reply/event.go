package reply

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// EventKind tells what an Event carries.
type EventKind int

const (
	// EventText is a piece of the answer (UTF-8 complete).
	EventText EventKind = iota
	// EventThinking is a piece of the model's reasoning (inside <think>…</think>).
	EventThinking
	// EventNotice reports something the user should know mid-stream (context trimmed,
	// fallback to another backend). Text holds the message.
	EventNotice
	// EventStatus reports progress before the first token (e.g. "Loading model…");
	// Text holds the message. It is not part of the reply.
	EventStatus
	// EventDone is the last event of every stream; Done holds the summary.
	EventDone
	// EventToolCall is a piece of a tool call as it forms; Tool holds it.
	EventToolCall
)

// Finish reasons.
const (
	FinishStop      = "stop"
	FinishLength    = "length"
	FinishCancelled = "cancelled"
	FinishError     = "error"
)

// Stop causes (Summary.StopCause).
const (
	StopEndOfText = "end_of_text" // the model ended its reply
	StopString    = "stop_string" // a stop string of the request
	StopMaxTokens = "max_tokens"  // the request's reply budget (Max tokens)
	StopContext   = "context"     // the model's context was full
)

// Event is one item of a reply stream. The producer closes the channel after EventDone.
type Event struct {
	Kind EventKind
	Text string
	Done *Summary
	Tool *ToolCallPart
	// Progress, on an EventStatus of a model's first load, says how far the preparation of
	// its optimized copy has gone; Text says it for people.
	Progress *Progress
}

// Summary closes a reply: why it ended, what it cost, who served it. In JSON, Err is the
// string "error" and TTFT the number "ttft_ms".
type Summary struct {
	FinishReason string `json:"finish_reason"`
	// StopCause says which end a finished reply reached, finer than FinishReason: StopEndOfText
	// or StopString for "stop", StopMaxTokens or StopContext for "length" ("" if not known).
	StopCause string `json:"stop_cause,omitempty"`
	// ContextTokens is the model's context (what its cache holds), set with StopContext.
	ContextTokens int `json:"context_tokens,omitempty"`
	// Model names the model that wrote the reply, for people ("onnx-community/Qwen3-0.6B-ONNX",
	// or its folder's name); "" when not known.
	Model string `json:"model,omitempty"`
	// Err is set when FinishReason is "error".
	Err error `json:"-"`

	PromptTokens    int `json:"prompt_tokens"`
	GeneratedTokens int `json:"generated_tokens"`
	ReusedTokens    int `json:"reused_tokens"`

	// TTFT is the time from the request to the first token.
	TTFT       time.Duration `json:"-"`
	PrefillTPS float64       `json:"prefill_tokens_per_s"`
	DecodeTPS  float64       `json:"decode_tokens_per_s"`

	// Backend is the route that served the reply ("npu", "cpu", "remote").
	Backend string `json:"backend"`
	// Device names the execution provider (e.g. "CPU", "QNN").
	Device string `json:"device,omitempty"`
	// FallbackReason says why the preferred route did not serve the reply.
	FallbackReason string `json:"fallback_reason,omitempty"`
	// RouteReason says why the reply went to a later route by design (e.g. a prompt over
	// the NPU prefill limit).
	RouteReason string `json:"route_reason,omitempty"`
	// TrimmedMessages counts the oldest messages dropped to fit the context window.
	TrimmedMessages int `json:"trimmed_messages,omitempty"`
	// Power is the power mode a local route ran the reply in; nil for a remote server.
	Power *Power `json:"power,omitempty"`

	// Lookup counts what prompt-lookup decoding did; nil when it did not run.
	Lookup *LookupStats `json:"lookup,omitempty"`

	PromptIDs []int `json:"prompt_ids,omitempty"`
	IDs       []int `json:"ids,omitempty"`

	// Sources are the passages of attached documents the prompt carried.
	Sources []Source `json:"sources,omitempty"`
	// Ranking says how the sources were chosen ("Passages ranked by keywords and by meaning
	// (bge-small-en-v1.5), re-ranked by ms-marco-MiniLM-L-6-v2"); "" when the documents were
	// given whole.
	Ranking string `json:"ranking,omitempty"`
}

// LookupStats count prompt-lookup decoding's drafts in one reply.
type LookupStats struct {
	// Drafted tokens were copied from earlier text and checked; Accepted of them were kept.
	Drafted  int `json:"drafted"`
	Accepted int `json:"accepted"`
	// Runs are the decoder's forward passes after the prompt; plain decoding needs one per
	// generated token but the first.
	Runs int `json:"runs"`
}

// AcceptanceRate is the share of drafted tokens kept (0 when none was drafted).
func (l *LookupStats) AcceptanceRate() float64 {
	if l == nil || l.Drafted == 0 {
		return 0
	}
	return float64(l.Accepted) / float64(l.Drafted)
}

// Power is the power mode a reply ran in: full speed, or battery saver on battery, with the
// energy saver on, or when pinned in the settings.
type Power struct {
	// Mode is "performance" or "saver".
	Mode string `json:"mode"`
	// Why is what chose the mode: the machine's state ("on battery (62%)", "on AC power") or
	// "pinned in the settings".
	Why string `json:"why"`
	// Threads are the CPU threads of the route's ONNX Runtime sessions.
	Threads int `json:"threads"`
	// HTPMode is QNN's htp_performance_mode; "" on other providers.
	HTPMode string `json:"htp_performance_mode,omitempty"`
}

// Label says it in one line: "battery saver (on battery (62%)): 4 CPU threads, no
// spin-waiting, QNN balanced".
func (p *Power) Label() string {
	if p == nil {
		return ""
	}
	mode, extra := "full speed", ""
	if p.Mode == "saver" {
		mode, extra = "battery saver", ", no spin-waiting"
	}
	s := fmt.Sprintf("%s (%s): %d CPU thread", mode, p.Why, p.Threads)
	if p.Threads != 1 {
		s += "s"
	}
	s += extra
	if p.HTPMode != "" {
		s += ", QNN " + p.HTPMode
	}
	return s
}

// Source is one passage of an attached document given to the model: where it is and what
// it says.
type Source struct {
	File    string `json:"file"`
	Page    int    `json:"page,omitempty"`    // 1-based PDF page, 0 when the format has none
	Heading string `json:"heading,omitempty"` // nearest heading above the passage
	Text    string `json:"text"`
}

// Label names where the passage is: "report.pdf, page 12" or "notes.md — Setup › Linux".
func (s Source) Label() string {
	l := s.File
	if s.Page > 0 {
		l += fmt.Sprintf(", page %d", s.Page)
	}
	if s.Heading != "" {
		l += " — " + s.Heading
	}
	return l
}

// ErrorText is Err's message, or "".
func (s *Summary) ErrorText() string {
	if s.Err == nil {
		return ""
	}
	return s.Err.Error()
}

// TTFTMillis is TTFT in milliseconds.
func (s *Summary) TTFTMillis() float64 { return float64(s.TTFT.Microseconds()) / 1000 }

// summaryJSON is Summary's wire form.
type summaryJSON struct {
	summaryFields
	Error      string  `json:"error,omitempty"`
	TTFTMillis float64 `json:"ttft_ms"`
}

// summaryFields has Summary's fields without its methods (no recursion into MarshalJSON).
type summaryFields Summary

// MarshalJSON writes Err as "error" and TTFT as "ttft_ms".
func (s Summary) MarshalJSON() ([]byte, error) {
	return json.Marshal(summaryJSON{summaryFields: summaryFields(s), Error: s.ErrorText(), TTFTMillis: s.TTFTMillis()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Summary) UnmarshalJSON(b []byte) error {
	var v summaryJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Summary(v.summaryFields)
	if v.Error != "" {
		s.Err = errors.New(v.Error)
	}
	s.TTFT = time.Duration(v.TTFTMillis * float64(time.Millisecond))
	return nil
}
