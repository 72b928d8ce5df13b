package chat

import (
	"fmt"
	"strings"

	"edgechat/models"
)

// FromPromptTemplate returns a template built from Foundry Local's inference_model.json
// PromptTemplate, for folders that have it and no Jinja chat template. Foundry documents no
// renderer, so this one is defined here, following the entries' own shape: each turn is its
// role's entry with {Content} replaced by the message; the last user turn takes the prompt
// entry instead when a generation prompt is asked for (it ends by opening the assistant's
// reply); a turn that does not end with a newline is followed by one, as the prompt entry
// separates the user turn from the assistant opening (Foundry's own files write the entries
// without a final newline; others end each one with it). A system message without a system entry goes before the first user
// message's text, separated by a blank line. A generation prompt after a last turn that is not
// the user's is the assistant entry's text before {Content}. Roles other than system, user and
// assistant are refused.
func FromPromptTemplate(p models.PromptTemplate) (*Template, error) {
	if p.Prompt == "" || !strings.Contains(p.Prompt, models.ContentPlaceholder) {
		return nil, fmt.Errorf("%w: inference_model.json's PromptTemplate needs a prompt entry with %s", ErrTemplate, models.ContentPlaceholder)
	}
	return &Template{roles: &p, source: p.System + p.User + p.Assistant + p.Prompt}, nil
}

// renderRoles renders msgs with a PromptTemplate (see FromPromptTemplate).
func renderRoles(p *models.PromptTemplate, msgs []Message, opt Options) (string, error) {
	fill := func(entry, content string) string {
		return strings.Replace(entry, models.ContentPlaceholder, content, 1)
	}
	var turns []string
	pendingSystem := ""
	last := len(msgs) - 1
	for i, m := range msgs {
		var entry string
		content := m.Content
		switch m.Role {
		case "system":
			if p.System == "" {
				pendingSystem += content + "\n\n"
				continue
			}
			entry = p.System
		case "user":
			content, pendingSystem = pendingSystem+content, ""
			entry = p.User
			if i == last && opt.AddGenerationPrompt {
				entry = p.Prompt
			}
		case "assistant":
			entry = p.Assistant
		default:
			return "", fmt.Errorf("%w: inference_model.json's PromptTemplate has no entry for role %q", ErrTemplate, m.Role)
		}
		if entry == "" {
			return "", fmt.Errorf("%w: inference_model.json's PromptTemplate has no %q entry, which this conversation needs", ErrTemplate, m.Role)
		}
		turns = append(turns, fill(entry, content))
	}
	if pendingSystem != "" {
		return "", fmt.Errorf("%w: inference_model.json's PromptTemplate has no system entry and no user message follows the system message", ErrTemplate)
	}
	if opt.AddGenerationPrompt && (last < 0 || msgs[last].Role != "user") {
		open, _, ok := strings.Cut(p.Assistant, models.ContentPlaceholder)
		if !ok {
			return "", fmt.Errorf("%w: inference_model.json's PromptTemplate has no assistant entry to open the reply with", ErrTemplate)
		}
		turns = append(turns, open)
	}
	var b strings.Builder
	for i, turn := range turns {
		if i > 0 && !strings.HasSuffix(turns[i-1], "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(turn)
	}
	return b.String(), nil
}
