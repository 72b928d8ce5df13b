package history

import "strings"

// ExportMarkdown renders c as Markdown: the title as a heading, each message under
// "**You**", "**Assistant**" or "**System**", and an assistant's thinking in a collapsed
// <details> block before its answer.
func ExportMarkdown(c *Conversation) string {
	var b strings.Builder
	title := c.Title
	if title == "" {
		title = "Conversation"
	}
	b.WriteString("# " + title + "\n")
	for _, m := range c.Messages {
		b.WriteString("\n**" + speaker(m.Role) + "**\n\n")
		if t := strings.TrimSpace(m.Thinking); t != "" {
			b.WriteString("<details>\n<summary>Thinking</summary>\n\n" + t + "\n\n</details>\n\n")
		}
		b.WriteString(strings.TrimSpace(m.Content) + "\n")
	}
	return b.String()
}

func speaker(role string) string {
	switch role {
	case RoleUser:
		return "You"
	case RoleAssistant:
		return "Assistant"
	case RoleSystem:
		return "System"
	}
	return role
}
