package inference

import "time"

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
)

// Finish reasons.
const (
	FinishStop      = "stop"
	FinishLength    = "length"
	FinishCancelled = "cancelled"
	FinishError     = "error"
)

// Event is one item of a reply stream. The producer closes the channel after EventDone.
type Event struct {
	Kind EventKind
	Text string
	Done *Summary
}

// Summary closes a reply: why it ended, what it cost, who served it.
type Summary struct {
	FinishReason string `json:"finish_reason"`
	// Err is set when FinishReason is "error"; Error holds its text for JSON.
	Err   error  `json:"-"`
	Error string `json:"error,omitempty"`

	PromptTokens    int `json:"prompt_tokens"`
	GeneratedTokens int `json:"generated_tokens"`
	ReusedTokens    int `json:"reused_tokens"`

	TimeToFirstToken time.Duration `json:"-"`
	TTFTMillis       float64       `json:"ttft_ms"`
	PrefillTPS       float64       `json:"prefill_tokens_per_s"`
	DecodeTPS        float64       `json:"decode_tokens_per_s"`

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

	PromptIDs []int `json:"prompt_ids,omitempty"`
	IDs       []int `json:"ids,omitempty"`
}
