package inference

import "strings"

// stopper finds stop strings in streamed text. It holds back the tail that could still
// become a stop string, so no part of one is ever emitted.
type stopper struct {
	stops   []string
	longest int
	pending string
}

func newStopper(stops []string) *stopper {
	s := &stopper{}
	for _, x := range stops {
		if x != "" {
			s.stops = append(s.stops, x)
			s.longest = max(s.longest, len(x))
		}
	}
	return s
}

// Add takes new text and returns what may be emitted, and whether a stop string was found
// (then the text before it is returned and the rest dropped).
func (s *stopper) Add(text string) (string, bool) {
	if len(s.stops) == 0 {
		return text, false
	}
	s.pending += text
	cut := -1
	for _, x := range s.stops {
		if i := strings.Index(s.pending, x); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		out := s.pending[:cut]
		s.pending = ""
		return out, true
	}
	keep := 0
	for _, x := range s.stops {
		for n := min(len(x)-1, len(s.pending)); n > keep; n-- {
			if strings.HasSuffix(s.pending, x[:n]) {
				keep = n
				break
			}
		}
	}
	out := s.pending[:len(s.pending)-keep]
	s.pending = s.pending[len(s.pending)-keep:]
	return out, false
}

// Flush returns the held-back text at the end of the stream.
func (s *stopper) Flush() string {
	out := s.pending
	s.pending = ""
	return out
}
