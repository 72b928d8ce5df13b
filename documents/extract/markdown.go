package extract

import (
	"strings"
)

// headings is the path of headings above the text, by level 1–9 (path[0] is unused).
type headings struct{ path [10]string }

func (h *headings) set(level int, title string) {
	h.path[level] = title
	for i := level + 1; i < len(h.path); i++ {
		h.path[i] = ""
	}
}

// String joins the headings: "Guide › Setup › Linux".
func (h *headings) String() string {
	var parts []string
	for _, p := range h.path[1:] {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " › ")
}

// readMarkdown splits Markdown at its ATX (#) and setext (===, ---) headings, outside code
// fences; each section keeps the heading path above it. The Markdown itself is kept, and
// sections are slices of the text, not copies.
func readMarkdown(b *budget, data []byte) (*Document, error) {
	text, err := decodeText(b, data)
	if err != nil {
		return nil, err
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	doc := &Document{Format: "markdown"}
	var h headings
	start, pos := 0, 0 // the current section is text[start:pos]
	prev := ""         // the previous line, a setext heading's title
	fence := ""
	flush := func(end int) {
		if body := text[start:end]; strings.TrimSpace(body) != "" {
			doc.Sections = append(doc.Sections, Section{Heading: h.String(), Text: body})
		}
	}
	for line := range strings.Lines(text) {
		lineStart := pos
		pos += len(line)
		trimmed := strings.TrimSpace(line)
		if f := fenceOf(trimmed); f != "" && (fence == "" || strings.HasPrefix(trimmed, fence)) {
			if fence == "" {
				fence = f
			} else {
				fence = ""
			}
		} else if fence == "" {
			if level, title := atxHeading(line); level > 0 {
				flush(lineStart)
				h.set(level, title)
				start, prev = pos, ""
				continue
			}
			if level := setextLevel(trimmed); level > 0 && strings.TrimSpace(prev) != "" {
				flush(lineStart - len(prev)) // the title line is not the section's text
				h.set(level, strings.TrimSpace(prev))
				start, prev = pos, ""
				continue
			}
		}
		prev = line
	}
	flush(pos)
	return doc, nil
}

func fenceOf(trimmed string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trimmed, f) {
			return f
		}
	}
	return ""
}

// atxHeading parses "## Title ##" (up to three spaces of indent).
func atxHeading(line string) (int, string) {
	s := strings.TrimRight(line, "\r\n")
	if len(s)-len(strings.TrimLeft(s, " ")) > 3 {
		return 0, ""
	}
	s = strings.TrimLeft(s, " ")
	level := 0
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(s) && s[level] != ' ' && s[level] != '\t') {
		return 0, ""
	}
	title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[level:]), "#"))
	if title == "" {
		return 0, ""
	}
	return level, title
}

// setextLevel is 1 for a "===" underline, 2 for "---", else 0.
func setextLevel(trimmed string) int {
	switch {
	case len(trimmed) >= 2 && strings.Trim(trimmed, "=") == "":
		return 1
	case len(trimmed) >= 2 && strings.Trim(trimmed, "-") == "":
		return 2
	}
	return 0
}
