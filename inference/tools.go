package inference

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"edgechat/inference/chat"
	"edgechat/inference/sample/grammar"
	"edgechat/inference/toolcall"
	"edgechat/reply"
)

// toolSupport is what a model knows of tools and constrained decoding: its tool-call format
// (from its chat template), its vocabulary as bytes (built on the first constrained reply)
// and the grammars of recent requests with their masks.
type toolSupport struct {
	toolFormat *toolcall.Format
	// templateText is the chat template's source ("" for a built-in layout).
	templateText string

	vocabOnce sync.Once
	vocab     *grammar.Vocab
	vocabErr  error

	grammars map[string]*grammar.Masks // by kind and schema; bounded by maxGrammars
	specials []string                  // the tokenizer's special tokens as text
}

// maxGrammars bounds the grammars (and their masks) a model keeps for later replies.
const maxGrammars = 16

// constrainedFromStart reports whether req constrains the reply from its first token.
func constrainedFromStart(req reply.Request) bool {
	if req.Prompt != nil {
		return false
	}
	mode := req.ToolChoice.Mode
	return len(req.Tools) > 0 && (mode == reply.ToolRequired || mode == reply.ToolFunction) || req.Format != nil
}

// callsAsText reports whether the template shows an assistant turn's calls only through its
// text (it never reads tool_calls): the calls are written into the content as the model
// writes them.
func (m *Model) callsAsText() bool {
	return m.toolFormat != nil && !strings.Contains(m.templateText, "tool_calls")
}

// systemTools is the tools key of the system message for templates that read tools from there
// (Phi-4-mini: a JSON list of the functions), "" for the others.
func (m *Model) systemTools(tools []reply.Tool) string {
	if len(tools) == 0 || !strings.Contains(m.templateText, "'tools' in message") && !strings.Contains(m.templateText, "message.tools") {
		return ""
	}
	docs := make([]string, len(tools))
	for i, t := range tools {
		s, err := chat.PythonJSON(functionDocument(t))
		if err != nil {
			s = string(functionDocument(t))
		}
		docs[i] = s
	}
	return "[" + strings.Join(docs, ", ") + "]"
}

// functionDocument is a tool as a function object: name, description, parameters.
func functionDocument(t reply.Tool) []byte {
	name, _ := json.Marshal(t.Name)
	desc, _ := json.Marshal(t.Description)
	params := t.Parameters
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{"type": "object", "properties": {}}`)
	}
	return fmt.Appendf(nil, `{"name": %s, "description": %s, "parameters": %s}`, name, desc, params)
}

// toolDocument is a tool as OpenAI's API and transformers pass it to a template.
func toolDocument(t reply.Tool) json.RawMessage {
	return fmt.Appendf(nil, `{"type": "function", "function": %s}`, functionDocument(t))
}

// pyJSONString is s as Python's json.dumps(s, ensure_ascii=False) writes it, without the quotes.
func pyJSONString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// tokenByter gives each token's bytes (*tokenizer.Pipeline does).
type tokenByter interface {
	TokenBytes(id int) ([]byte, bool)
}

// grammarVocab is the model's vocabulary for constrained decoding, built once.
func (m *Model) grammarVocab() (*grammar.Vocab, error) {
	m.vocabOnce.Do(func() {
		tb, ok := m.Tokenizer.(tokenByter)
		if !ok {
			m.vocabErr = reply.ToolsError(errors.New("structured output and tool calls need EdgeChat's own tokenizer, which this build does not use"))
			return
		}
		width := m.dec.Vocab()
		toks := make([][]byte, width)
		for id := range min(width, m.Tokenizer.VocabSize()) {
			if b, ok := tb.TokenBytes(id); ok {
				toks[id] = b
			}
		}
		m.vocab = grammar.NewVocab(toks, width)
	})
	return m.vocab, m.vocabErr
}

// masks returns the masks of the grammar key names, compiling it with build the first time.
func (m *Model) masks(key string, build func() (*grammar.Grammar, error)) (*grammar.Masks, error) {
	if ms, ok := m.grammars[key]; ok {
		return ms, nil
	}
	v, err := m.grammarVocab()
	if err != nil {
		return nil, err
	}
	g, err := build()
	if err != nil {
		return nil, reply.ToolsError(err)
	}
	if m.grammars == nil || len(m.grammars) >= maxGrammars {
		m.grammars = map[string]*grammar.Masks{}
	}
	ms := grammar.NewMasks(g, v)
	m.grammars[key] = ms
	return ms, nil
}

// checkTools refuses tools a reply cannot use: no name, a name twice, a tool choice naming no
// tool, a model without a tool-call format, or tool text holding one of the model's control
// tokens (which the template would pass to the model as that token).
func (m *Model) checkTools(req reply.Request) error {
	seen := map[string]bool{}
	for i, t := range req.Tools {
		switch {
		case t.Name == "":
			return reply.ToolsError(fmt.Errorf("tool %d has no name", i))
		case seen[t.Name]:
			return reply.ToolsError(fmt.Errorf("two tools are named %q; give each its own name", t.Name))
		}
		seen[t.Name] = true
		if err := m.noControlTokens(fmt.Sprintf("tool %q", t.Name), t.Name, t.Description, string(t.Parameters)); err != nil {
			return err
		}
	}
	if c := req.ToolChoice; c.Mode == reply.ToolFunction && !seen[c.Name] {
		return reply.ToolsError(fmt.Errorf("tool_choice names %q, which is not among the tools", c.Name))
	}
	if (req.ToolChoice.Mode == reply.ToolRequired || req.ToolChoice.Mode == reply.ToolFunction) && len(req.Tools) == 0 {
		return reply.ToolsError(errors.New("tool_choice asks for a tool call but no tools are given"))
	}
	if len(req.Tools) > 0 && req.ToolChoice.Mode != reply.ToolNone && m.toolFormat == nil {
		return reply.ToolsError(errors.New("this model's chat template has no way to call tools; leave the tools out or choose a model whose template supports them (Qwen3, Llama 3.1/3.2, Mistral, Phi-4-mini, Hermes)"))
	}
	for i, msg := range req.Messages {
		for _, c := range msg.ToolCalls {
			if err := m.noControlTokens(fmt.Sprintf("message %d's call of %q", i, c.Name), c.ID, c.Name, string(c.Arguments)); err != nil {
				return err
			}
		}
		if err := m.noControlTokens(fmt.Sprintf("message %d", i), msg.ToolCallID, msg.Name); err != nil {
			return err
		}
	}
	return nil
}

// noControlTokens refuses texts that hold one of the tokenizer's special tokens.
func (m *Model) noControlTokens(what string, texts ...string) error {
	if m.specials == nil {
		m.specials = []string{}
		for id := range m.Tokenizer.VocabSize() {
			if m.Tokenizer.IsSpecial(id) {
				if s := m.Tokenizer.Decode([]int{id}, false); s != "" {
					m.specials = append(m.specials, s)
				}
			}
		}
	}
	for _, t := range texts {
		for _, s := range m.specials {
			if strings.Contains(t, s) {
				return reply.ToolsError(fmt.Errorf("%s holds %q, one of this model's control tokens; remove it", what, s))
			}
		}
	}
	return nil
}
