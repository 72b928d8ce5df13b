package extract

import "strings"

// sectioner cuts text into sections at headings. A heading that another replaces before
// any text came under it (a title followed by a chapter heading, two headings in a row)
// keeps its words as the text of a section of its own, so no heading is lost.
type sectioner struct {
	doc  *Document
	h    headings
	body strings.Builder
	// pending is the last heading's level and words while no text has come under it.
	pending      string
	pendingLevel int
}

// heading starts a section under a heading of level 1–9.
func (s *sectioner) heading(level int, text string) {
	s.flush()
	if level <= s.pendingLevel {
		s.finish()
	}
	s.h.set(level, text)
	s.pending, s.pendingLevel = text, level
}

// flush ends the current section.
func (s *sectioner) flush() {
	if strings.TrimSpace(s.body.String()) != "" {
		s.doc.Sections = append(s.doc.Sections, Section{Heading: s.h.String(), Text: s.body.String()})
		s.pending = ""
	}
	s.body.Reset()
}

// finish ends the last section, and keeps a last heading without text under it.
func (s *sectioner) finish() {
	s.flush()
	if s.pending != "" {
		parent := s.h
		parent.set(s.pendingLevel, "")
		s.doc.Sections = append(s.doc.Sections, Section{Heading: parent.String(), Text: s.pending})
		s.pending = ""
	}
}

// restart ends the current section and starts a new outline under a heading of level 1
// (a DOCX's footnotes after its body).
func (s *sectioner) restart(heading string) {
	s.finish()
	s.h = headings{}
	s.h.set(1, heading)
}
