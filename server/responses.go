package server

import "edgechat/reply"

// The response objects of the OpenAI chat API, as this server writes them.

type chatCompletion struct {
	ID        string         `json:"id"`
	Object    string         `json:"object"` // "chat.completion"
	Created   int64          `json:"created"`
	Model     string         `json:"model"`
	Choices   []choice       `json:"choices"`
	Usage     *usage         `json:"usage,omitempty"`
	XEdgeChat *edgechatStats `json:"x_edgechat,omitempty"`
}

type choice struct {
	Index        int              `json:"index"`
	Message      assistantMessage `json:"message"`
	FinishReason string           `json:"finish_reason"`
}

type assistantMessage struct {
	Role             string            `json:"role"`
	Content          *string           `json:"content"` // null when the reply is only tool calls
	ReasoningContent string            `json:"reasoning_content,omitempty"`
	ToolCalls        []messageToolCall `json:"tool_calls,omitempty"`
}

type chatChunk struct {
	ID        string         `json:"id"`
	Object    string         `json:"object"` // "chat.completion.chunk"
	Created   int64          `json:"created"`
	Model     string         `json:"model"`
	Choices   []chunkChoice  `json:"choices"`
	Usage     *usage         `json:"usage,omitempty"`
	XEdgeChat *edgechatStats `json:"x_edgechat,omitempty"`
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	ToolCalls        []toolCallDelta `json:"tool_calls,omitempty"`
}

// toolCallDelta is a piece of a streamed tool call: the first of a call has its id, type
// and name (and empty arguments), the later ones the next fragment of its arguments.
type toolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func toolCallDeltaOf(p reply.ToolCallPart) toolCallDelta {
	d := toolCallDelta{Index: p.Index, ID: p.ID}
	if p.ID != "" {
		d.Type = "function"
	}
	d.Function.Name, d.Function.Arguments = p.Name, p.Arguments
	return d
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// edgechatStats is the x_edgechat object: how and where the reply was made.
type edgechatStats struct {
	Backend         string   `json:"backend"`
	Device          string   `json:"device,omitempty"`
	FallbackReason  string   `json:"fallback_reason,omitempty"`
	RouteReason     string   `json:"route_reason,omitempty"`
	TTFTMillis      float64  `json:"ttft_ms"`
	PrefillTPS      float64  `json:"prefill_tokens_per_s"`
	DecodeTPS       float64  `json:"decode_tokens_per_s"`
	ReusedTokens    int      `json:"reused_tokens"`
	TrimmedMessages int      `json:"trimmed_messages,omitempty"`
	Notices         []string `json:"notices,omitempty"`
	// Sources are the document passages the prompt carried (see package documents).
	Sources []reply.Source `json:"sources,omitempty"`
	// Lookup counts prompt-lookup decoding's drafts (absent when it did not run).
	Lookup *reply.LookupStats `json:"lookup,omitempty"`
	// Power is the power mode the reply ran in (full speed or battery saver, and why).
	Power *reply.Power `json:"power,omitempty"`
}

type modelList struct {
	Object string      `json:"object"` // "list"
	Data   []modelInfo `json:"data"`
}

type modelInfo struct {
	ID      string `json:"id"`
	Object  string `json:"object"` // "model"
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func usageOf(s *reply.Summary) *usage {
	return &usage{PromptTokens: s.PromptTokens, CompletionTokens: s.GeneratedTokens, TotalTokens: s.PromptTokens + s.GeneratedTokens}
}

func statsOf(s *reply.Summary, notices []string) *edgechatStats {
	return &edgechatStats{
		Backend: s.Backend, Device: s.Device, FallbackReason: s.FallbackReason, RouteReason: s.RouteReason,
		TTFTMillis: s.TTFTMillis(), PrefillTPS: s.PrefillTPS, DecodeTPS: s.DecodeTPS,
		ReusedTokens: s.ReusedTokens, TrimmedMessages: s.TrimmedMessages, Notices: notices,
		Sources: s.Sources, Lookup: s.Lookup, Power: s.Power,
	}
}

// finishReason maps the engine's finish reason to OpenAI's; ok is false for a reply that
// did not finish (error, cancelled).
func finishReason(s *reply.Summary) (string, bool) {
	switch s.FinishReason {
	case reply.FinishStop:
		return "stop", true
	case reply.FinishLength:
		return "length", true
	case reply.FinishToolCalls:
		return "tool_calls", true
	}
	return "", false
}
