package reply

// Message is one turn of a conversation. Role is "system", "user", "assistant" or "tool".
// Thinking holds an assistant turn's reasoning (Qwen3's <think> block), if kept. An assistant
// turn that called tools lists its ToolCalls (its Content may be empty); a "tool" turn is one
// call's result: ToolCallID names the call and Content holds the result as data (the engine
// never lets it become special tokens).
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Name is the called function's name on a "tool" turn (some templates print it).
	Name string `json:"name,omitempty"`
}

// Sampling controls how the next token is chosen. Nil pointers take the model's defaults
// (generation_config.json / genai_config.json). Temperature 0 means greedy.
type Sampling struct {
	Temperature       *float64 `json:"temperature,omitempty"`
	TopK              *int     `json:"top_k,omitempty"`
	TopP              *float64 `json:"top_p,omitempty"`
	MinP              *float64 `json:"min_p,omitempty"`
	RepetitionPenalty *float64 `json:"repetition_penalty,omitempty"`
	PresencePenalty   *float64 `json:"presence_penalty,omitempty"`
	// FrequencyPenalty is subtracted from a token's logit once for each time the reply so far
	// holds it (OpenAI's frequency_penalty; the prompt does not count).
	FrequencyPenalty *float64 `json:"frequency_penalty,omitempty"`
	Seed             *int64   `json:"seed,omitempty"`
	// LogitBias adds a bias from -100 to 100 to the logits of the token ids it names before
	// sampling, greedy decoding included (OpenAI's logit_bias): -100 bans the token, 100 all but
	// forces it. An id outside the model's vocabulary is an error (ErrInvalidParameter).
	LogitBias map[int]float64 `json:"logit_bias,omitempty"`
}

// DefaultMaxTokens is the reply budget when a request sets none.
const DefaultMaxTokens = 2048

// DefaultMaxContext caps the KV cache when a route sets no limit: the model may allow far more
// (Qwen3: 40,960), but every token of context costs memory. Consumers that size what goes into
// a prompt (attached documents) read it too.
const DefaultMaxContext = 8192

// MaxLogitBias is the largest bias LogitBias may give a token, and its negative the smallest.
const MaxLogitBias = 100

// Request asks for one assistant reply to Messages, or with Prompt set for the continuation
// of a raw prompt.
type Request struct {
	Messages []Message
	// Prompt, when set, asks for plain completion (a base model continuing text) instead of a
	// chat reply: Messages must be empty, and the engine uses no chat template, roles or system
	// prompt, never drops part of the prompt to fit it (a prompt over the context is
	// ErrContextLength) and does not parse <think> blocks.
	Prompt *Prompt
	// Thinking turns Qwen3's reasoning on (enable_thinking in the chat template).
	Thinking bool
	// Tools are the functions the model may call; the chat template shows them to the model
	// and the reply may end with FinishToolCalls and EventToolCall events. None: no tools.
	Tools []Tool
	// ToolChoice says whether the model may, must or must not call them (zero: auto).
	ToolChoice ToolChoice
	// OneToolCall allows at most one tool call in the reply (OpenAI's
	// parallel_tool_calls: false).
	OneToolCall bool
	// Format, when set, constrains the reply's text to JSON (json_object) or to a JSON schema.
	Format *Format
	// MaxTokens caps the reply; 0 takes DefaultMaxTokens. A budget over the model's
	// context is cut to what the context holds, unless StrictMaxTokens is set.
	MaxTokens int
	// StrictMaxTokens makes a MaxTokens over the model's context an error
	// (ErrContextLength) before anything is generated, as OpenAI's API answers it.
	StrictMaxTokens bool
	Sampling        Sampling
	// NoLookup turns prompt-lookup decoding off for this reply (it is on by default where the
	// model's graph can check drafts: the reply is the same either way, only its speed differs).
	NoLookup bool
	// Stop lists strings that end the reply when generated (not included in it).
	Stop []string
	// ConversationID lets the engine keep this conversation's KV cache for the next turn.
	ConversationID string
	// Attachments are files whose passages go into the last user message (package
	// documents does that; the engine itself ignores them). Never set from a network request.
	Attachments []Attachment `json:"-"`
}

// Prompt is the raw prompt of a plain completion: Text, to which the tokenizer adds its own
// special tokens as tokenizer.json says (Llama 2's BOS), or, when IDs is not empty, token ids
// used exactly as given.
type Prompt struct {
	Text string `json:"text,omitempty"`
	IDs  []int  `json:"ids,omitempty"`
}

// Attachment is a document file on this machine attached to a request.
type Attachment struct {
	// Name is what the person sees ("report.pdf").
	Name string
	// Path is the file to read.
	Path string
	// IndexPath is where its search index is kept between requests ("" = not kept).
	IndexPath string
}
