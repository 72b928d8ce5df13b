// Package chat turns a conversation into a model's prompt text with the model's own Jinja chat
// template, rendered the way Hugging Face transformers renders it, and trims conversations to
// fit a context window.
package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"

	"edgechat/models"
)

// Message is one turn of a conversation as a chat template sees it.
type Message struct {
	// Role is "system", "user", "assistant" or "tool".
	Role string
	// Content is the text of the turn. For an assistant turn it may hold a
	// "<think>…</think>" block; Qwen3's template splits it off itself.
	Content string
	// ReasoningContent is an assistant turn's reasoning kept apart from Content. Empty means
	// absent: the template then sees no reasoning_content key at all (with Qwen3 an empty but
	// present reasoning_content would stop it from splitting <think> out of Content).
	ReasoningContent string
	// ToolCalls are an assistant turn's tool calls; the template sees them as transformers
	// passes them: tool_calls, a list of {"id", "type": "function", "function": {"name",
	// "arguments"}} with the arguments a mapping (when they are a JSON object).
	ToolCalls []ToolCall
	// ToolCallID and Name, on a "tool" turn, are the tool_call_id and name keys: the call the
	// result answers and its function.
	ToolCallID, Name string
	// Tools, on a system turn, is its tools key (the tool list as JSON text), for templates
	// that read tools from the system message (Phi-4-mini) rather than the tools variable.
	Tools string
}

// ToolCall is one call of an assistant turn.
type ToolCall struct {
	ID, Name string
	// Arguments is the JSON text of the arguments.
	Arguments []byte
}

// Options are the variables a chat template gets besides the messages.
type Options struct {
	// AddGenerationPrompt ends the prompt with the opening of an assistant turn.
	AddGenerationPrompt bool
	// EnableThinking sets Qwen3's enable_thinking; nil leaves it undefined (the template's
	// default, thinking on for Qwen3).
	EnableThinking *bool
	// BOS and EOS are the bos_token and eos_token variables; empty leaves them undefined.
	BOS, EOS string
	// Tools are the tool (function) schemas, passed as the template's tools variable.
	// Each element may be a JSON document (json.RawMessage, []byte or string holding a JSON
	// object), whose key order is kept as written, or a Go value (maps render with sorted
	// keys in tojson).
	Tools []any
}

// ErrTemplate marks every error from New and Render; errors.Is(err, ErrTemplate) tells a broken
// or refusing template apart from other failures.
var ErrTemplate = errors.New("chat template")

// Template is a parsed chat template. It is safe for concurrent use.
type Template struct {
	tpl *exec.Template
	// source is the template's text (a PromptTemplate's entries), for Source.
	source   string
	roles    *models.PromptTemplate // instead of tpl: built by FromPromptTemplate
	fallback bool
}

// chatMLSource is the ChatML layout Qwen models use, without thinking or tools.
const chatMLSource = `{%- for message in messages %}
{{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|im_start|>assistant\n' }}
{%- endif %}`

// New parses source, a Jinja chat template (tokenizer_config.json's chat_template), and
// renders sample conversations with it under the sandbox's limits (limits.go): a template
// that goes over them is refused here, with an error wrapping ErrLimit, not at reply time.
func New(source string) (*Template, error) {
	if strings.TrimSpace(source) == "" {
		return nil, fmt.Errorf("%w: the template is empty — use chat.ChatML() when a model folder has none", ErrTemplate)
	}
	tpl, err := guard(func() (*exec.Template, error) { return parse(source) })
	if errors.Is(err, ErrLimit) {
		return nil, fmt.Errorf("%w: %w", ErrTemplate, refusal(err))
	}
	if err != nil {
		// gonja quotes the whole source in its message; a chat template runs to kilobytes.
		msg := strings.Replace(err.Error(), "failed to parse template '"+source+"': ", "", 1)
		return nil, fmt.Errorf("%w: parse: %s — check the chat_template in tokenizer_config.json (or chat_template.jinja)", ErrTemplate, msg)
	}
	t := &Template{tpl: tpl, source: source}
	if err := t.trial(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTemplate, refusal(err))
	}
	return t, nil
}

// refusal words a template's going over the sandbox's limits for the person loading it; it
// wraps err (ErrLimit, or the context's error).
func refusal(err error) error {
	reason := err.Error()
	if _, r, ok := strings.Cut(reason, ErrLimit.Error()+": "); ok {
		reason = r
	}
	return fmt.Errorf("this model's chat template is unsafe to run: %s — EdgeChat cannot use it%w", reason, quiet{err})
}

// quiet wraps an error without adding to the message.
type quiet struct{ err error }

func (q quiet) Error() string { return "" }
func (q quiet) Unwrap() error { return q.err }

// trialConversations are what New renders a template with: a chat with a system message,
// thinking, tools, a tool call and its result, and a bare user message.
var trialConversations = []struct {
	msgs []Message
	opt  Options
}{
	{
		msgs: []Message{
			{Role: "system", Content: "You are a helpful assistant."},
			{Role: "user", Content: "What is the weather in Paris?"},
			{Role: "assistant", Content: "", ReasoningContent: "The user wants the weather.", ToolCalls: []ToolCall{{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city": "Paris"}`)}}},
			{Role: "tool", Content: `{"temperature": 21}`, ToolCallID: "call_1", Name: "get_weather"},
			{Role: "assistant", Content: "<think>\nIt is mild.\n</think>\n\nIt is 21 °C in Paris."},
			{Role: "user", Content: "Thanks! And tomorrow?"},
		},
		opt: Options{AddGenerationPrompt: true, BOS: "<s>", EOS: "</s>", Tools: []any{
			`{"type": "function", "function": {"name": "get_weather", "description": "Get the weather", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city"}, "days": {"type": "integer", "enum": [1, 2, 3]}}, "required": ["city"]}}}`,
		}},
	},
	{msgs: []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hello"}, {Role: "assistant", Content: "Hi!"}, {Role: "user", Content: "How are you?"}}, opt: Options{AddGenerationPrompt: true}},
	{msgs: []Message{{Role: "user", Content: "Hello"}}, opt: Options{AddGenerationPrompt: true}},
}

// trial renders the trial conversations; a template may refuse one (raise_exception, a role it
// does not know), but none may go over the limits.
func (t *Template) trial() error {
	for _, c := range trialConversations {
		for _, thinking := range []bool{true, false} {
			opt := c.opt
			opt.EnableThinking = &thinking
			if _, err := t.Render(c.msgs, opt); errors.Is(err, ErrLimit) {
				return err
			}
		}
	}
	return nil
}

// ChatML returns the template to use when a model folder has none: plain ChatML
// ("<|im_start|>role\ncontent<|im_end|>\n" per message), which Qwen models understand. It
// ignores EnableThinking, tools and reasoning: it knows nothing of a model's extras.
func ChatML() *Template {
	tpl, err := parse(chatMLSource)
	if err != nil {
		panic("chat: built-in ChatML template does not parse: " + err.Error())
	}
	return &Template{tpl: tpl, source: chatMLSource, fallback: true}
}

// Source is the template's text: the Jinja source, or a PromptTemplate's entries one after
// another.
func (t *Template) Source() string { return t.source }

// IsFallback reports whether t is the built-in ChatML template rather than the model's own.
func (t *Template) IsFallback() bool { return t.fallback }

// Render renders msgs into prompt text.
func (t *Template) Render(msgs []Message, opt Options) (string, error) {
	return t.RenderContext(context.Background(), msgs, opt)
}

// RenderContext renders msgs into prompt text under the sandbox's limits (limits.go), and
// stops when ctx is done.
func (t *Template) RenderContext(ctx context.Context, msgs []Message, opt Options) (string, error) {
	if t.roles != nil {
		return renderRoles(t.roles, msgs, opt)
	}
	out, _, err := t.render(ctx, msgs, opt)
	return out, err
}

// render is RenderContext, with what the render used of its budget.
func (t *Template) render(ctx context.Context, msgs []Message, opt Options) (string, *budget, error) {
	vars, err := variables(msgs, opt)
	if err != nil {
		return "", nil, err
	}
	// gonja flattens a function's error into its own text; keep the template's own words.
	var raised error
	vars["raise_exception"] = func(msg string) (string, error) {
		raised = fmt.Errorf("the template refused the conversation: %s", msg)
		return "", raised
	}
	b := newBudget(ctx, limitsFor(inputSize(msgs, opt)))
	vars[budgetName] = b
	out, err := guard(func() (string, error) { return t.tpl.ExecuteToString(exec.NewContext(vars)) })
	switch {
	case b.err != nil:
		return "", b, fmt.Errorf("%w: %w", ErrTemplate, b.err)
	case raised != nil:
		return "", b, fmt.Errorf("%w: %w", ErrTemplate, raised)
	case err != nil:
		return "", b, fmt.Errorf("%w: render: %v", ErrTemplate, err)
	}
	return out, b, nil
}

// inputSize counts the messages, tool calls and tools of a render, and their bytes.
func inputSize(msgs []Message, opt Options) (items, size int) {
	items = len(msgs) + len(opt.Tools)
	size = len(opt.BOS) + len(opt.EOS)
	for _, m := range msgs {
		size += len(m.Role) + len(m.Content) + len(m.ReasoningContent) + len(m.ToolCallID) + len(m.Name) + len(m.Tools)
		items += len(m.ToolCalls)
		for _, c := range m.ToolCalls {
			size += len(c.ID) + len(c.Name) + len(c.Arguments)
		}
	}
	for _, tool := range opt.Tools {
		switch tool := tool.(type) {
		case string:
			size += len(tool)
		case []byte:
			size += len(tool)
		case json.RawMessage:
			size += len(tool)
		default:
			size += 1 << 10
		}
	}
	return items, size
}

// variables builds the template's context the way transformers' apply_chat_template does.
func variables(msgs []Message, opt Options) (map[string]any, error) {
	messages := make(pyList, len(msgs))
	for i, m := range msgs {
		mm := map[string]any{"role": m.Role, "content": m.Content}
		if m.ReasoningContent != "" {
			mm["reasoning_content"] = m.ReasoningContent
		}
		if err := addToolKeys(mm, m); err != nil {
			return nil, fmt.Errorf("%w: message %d: %v", ErrTemplate, i, err)
		}
		messages[i] = mm
	}
	vars := map[string]any{
		"messages":              messages,
		"add_generation_prompt": opt.AddGenerationPrompt,
		"tools":                 nil,
		"documents":             nil,
	}
	if opt.EnableThinking != nil {
		vars["enable_thinking"] = *opt.EnableThinking
	}
	if opt.BOS != "" {
		vars["bos_token"] = opt.BOS
	}
	if opt.EOS != "" {
		vars["eos_token"] = opt.EOS
	}
	if len(opt.Tools) > 0 {
		tools := make([]any, len(opt.Tools))
		for i, tool := range opt.Tools {
			v, err := toolValue(tool)
			if err != nil {
				return nil, fmt.Errorf("%w: tool %d: %v", ErrTemplate, i, err)
			}
			tools[i] = v
		}
		vars["tools"] = tools
	}
	return vars, nil
}

// guard turns a panic inside the template engine into an error: a chat template comes from a
// downloaded model folder and must not be able to crash the app.
func guard[T any](fn func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("template engine failed: %v", r)
		}
	}()
	return fn()
}
