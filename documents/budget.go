package documents

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"edgechat/models"
	"edgechat/reply"
	"edgechat/tokenizer"
)

// Budget is how much the model can read: its context and a way to count tokens.
type Budget struct {
	// Context is the model's window in tokens.
	Context int
	// Count returns the tokens of text; nil estimates (see Estimate).
	Count func(text string) int
	// PromptLimit is the longest prompt the preferred route takes (an NPU's prefill limit);
	// 0 means the context minus the reply budget.
	PromptLimit int
}

// perMessage is what a chat template adds around each message (role markers, newlines).
const perMessage = 8

// count counts with Count or estimates.
func (b Budget) count(text string) int {
	if b.Count != nil {
		return b.Count(text)
	}
	return Estimate(text)
}

// Estimate over-counts the tokens of text without a tokenizer: byte-level BPE vocabularies
// take ≥ 3 bytes of English a token, and at most one token per other character.
func Estimate(text string) int {
	ascii, other := 0, 0
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, w := utf8.DecodeRuneInString(text[i:])
		other++
		i += w
	}
	return (ascii+2)/3 + other
}

// Passages is the room left for document passages in the last user message of req: the
// context minus the reply budget, the system prompt, the history and the question. It
// never drops below half of what the question alone leaves, so long histories lose their
// oldest turns (the engine trims them) rather than the documents.
func (b Budget) Passages(req reply.Request) int {
	if b.Context <= 0 || len(req.Messages) == 0 {
		return 0
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = reply.DefaultMaxTokens
	}
	reserve := min(maxTokens, b.Context/2) // as the engine reserves for the reply
	prompt := b.Context - reserve
	if b.PromptLimit > 0 {
		prompt = min(prompt, b.PromptLimit)
	}
	free := prompt - instructionTokens
	last := len(req.Messages) - 1
	history := 0
	for i, m := range req.Messages {
		n := b.count(m.Content) + perMessage
		if m.Role == "system" || i == last {
			free -= n
		} else {
			history += n
		}
	}
	return max(free-history, free/2, 0)
}

// instructionTokens bounds what Compose adds beside the passages and the question.
const instructionTokens = 96

var budgets sync.Map // "dir\x00file\x00max" → Budget

// ModelBudget is the budget of the model in dir (modelFile picks a layout-A file; maxContext
// caps the context as the route does, 0 = the engine's default cap). The tokenizer is loaded
// once per model.
func ModelBudget(dir, modelFile string, maxContext int) (Budget, error) {
	key := fmt.Sprint(dir, "\x00", modelFile, "\x00", maxContext)
	if b, ok := budgets.Load(key); ok {
		return b.(Budget), nil
	}
	f, err := models.Open(dir, modelFile)
	if err != nil {
		return Budget{}, err
	}
	tok, err := tokenizer.Load(f.Tokenizer)
	if err != nil {
		return Budget{}, err
	}
	ctx := f.ContextLength()
	if rep, err := models.Inspect(dir, modelFile); err == nil && rep.ContextLength > 0 {
		ctx = rep.ContextLength // a static NPU graph's window, not the architecture's
	}
	limit := maxContext
	if limit <= 0 {
		limit = reply.DefaultMaxContext
	}
	if ctx <= 0 || ctx > limit {
		ctx = limit
	}
	b := Budget{Context: ctx, Count: func(s string) int { return len(tok.Encode(s)) }}
	budgets.Store(key, b)
	return b, nil
}
