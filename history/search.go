package history

import (
	"os"
	"strings"
)

// Search returns the conversations whose title or messages contain every word of q, ignoring
// case, newest first. An empty q returns List(). The first search reads each body once and keeps
// its lowercased text in memory; Save and Load keep that text current, so later searches (one
// per keystroke) read no files.
func (s *Store) Search(q string) []Summary {
	words := strings.Fields(strings.ToLower(q))
	if len(words) == 0 {
		return s.List()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Summary
	for id, e := range s.entries {
		if !e.hasTxt {
			e.text, e.hasTxt = s.readText(id, e), true
		}
		if containsAll(e.text, words) {
			out = append(out, e.sum)
		}
	}
	sortNewestFirst(out)
	return out
}

// readText loads a body for the search index; an unreadable body still matches on its title
// (Load reports the damage when the user opens it).
func (s *Store) readText(id string, e *entry) string {
	data, err := os.ReadFile(s.path(id))
	if err != nil {
		return strings.ToLower(e.sum.Title)
	}
	c, err := decode(data)
	if err != nil {
		return strings.ToLower(e.sum.Title)
	}
	return searchText(c)
}

// searchText is the lowercased title and message text that Search matches against.
func searchText(c *Conversation) string {
	var b strings.Builder
	b.WriteString(c.Title)
	for _, m := range c.Messages {
		b.WriteByte('\n')
		b.WriteString(m.Content)
		if m.Thinking != "" {
			b.WriteByte('\n')
			b.WriteString(m.Thinking)
		}
	}
	return strings.ToLower(b.String())
}

func containsAll(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}
