package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// A hand-written reader for the bulk of tokenizer.json (the model's vocab and merges, ~10 MB):
// encoding/json alone takes most of the 300 ms load budget. Everything else in the file goes
// through encoding/json.

var errSyntax = errors.New("invalid JSON")

type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// expect skips white space and one byte c.
func (s *scanner) expect(c byte) error {
	s.ws()
	if s.pos >= len(s.data) || s.data[s.pos] != c {
		return fmt.Errorf("%w at byte %d: want %q", errSyntax, s.pos, c)
	}
	s.pos++
	return nil
}

// more reports whether a list continues: it consumes a ',' (true) or the closing byte (false).
func (s *scanner) more(closing byte) (bool, error) {
	s.ws()
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',':
			s.pos++
			return true, nil
		case closing:
			s.pos++
			return false, nil
		}
	}
	return false, fmt.Errorf("%w at byte %d: want ',' or %q", errSyntax, s.pos, closing)
}

// peekClose consumes closing if it comes next (an empty object or array).
func (s *scanner) peekClose(closing byte) bool {
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == closing {
		s.pos++
		return true
	}
	return false
}

// str reads a string.
func (s *scanner) str() (string, error) {
	b, err := s.bytes()
	return string(b), err
}

// bytes reads a string without copying it when it has no escapes (escaped ones go through
// encoding/json); the result may point into the file's bytes.
func (s *scanner) bytes() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	start, escaped := s.pos, false
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			escaped = true
			s.pos += 2
			continue
		case '"':
			s.pos++
			if !escaped {
				return s.data[start : s.pos-1], nil
			}
			var v string
			err := json.Unmarshal(s.data[start-1:s.pos], &v)
			return []byte(v), err
		}
		s.pos++
	}
	return nil, fmt.Errorf("%w: unterminated string", errSyntax)
}

// integer reads a non-negative integer.
func (s *scanner) integer() (int, error) {
	s.ws()
	start, n := s.pos, 0
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		n = n*10 + int(s.data[s.pos]-'0')
		s.pos++
	}
	if s.pos == start || s.pos-start > 9 {
		return 0, fmt.Errorf("%w at byte %d: want a token id", errSyntax, start)
	}
	return n, nil
}

// skip passes over one value and returns its bytes.
func (s *scanner) skip() ([]byte, error) {
	s.ws()
	start, depth := s.pos, 0
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			if err := s.skipString(); err != nil {
				return nil, err
			}
		case c == '{' || c == '[':
			depth++
			s.pos++
		case c == '}' || c == ']':
			if depth == 0 { // the end of the enclosing container ends a scalar
				return s.data[start:s.pos], nil
			}
			depth--
			s.pos++
		case c == ',' && depth == 0:
			return s.data[start:s.pos], nil
		default:
			s.pos++
		}
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return s.data[start:s.pos], nil
		}
	}
	return nil, fmt.Errorf("%w: unexpected end", errSyntax)
}

func (s *scanner) skipString() error {
	for s.pos++; s.pos < len(s.data); s.pos++ {
		switch s.data[s.pos] {
		case '\\':
			s.pos++
		case '"':
			s.pos++
			return nil
		}
	}
	return fmt.Errorf("%w: unterminated string", errSyntax)
}

// object calls f for every key of an object, with the scanner on the value; f must read it.
func (s *scanner) object(f func(key string) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peekClose('}') {
		return nil
	}
	for {
		k, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := f(k); err != nil {
			return err
		}
		if more, err := s.more('}'); err != nil || !more {
			return err
		}
	}
}

// array calls f for every element, with the scanner on it; f must read it.
func (s *scanner) array(f func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peekClose(']') {
		return nil
	}
	for {
		if err := f(); err != nil {
			return err
		}
		if more, err := s.more(']'); err != nil || !more {
			return err
		}
	}
}

// scanFile reads tokenizer.json: the model's vocab and merges by hand, every other value of
// the file and of the model with encoding/json into f.
func scanFile(data []byte, f *fileJSON) (vocab map[string]int32, merges []mergePair, err error) {
	s := &scanner{data: data}
	var top, model []byte
	top, model = append(top, '{'), append(model, '{')
	add := func(dst []byte, key string) ([]byte, error) {
		v, err := s.skip()
		if err != nil {
			return nil, err
		}
		if len(dst) > 1 {
			dst = append(dst, ',')
		}
		k, _ := json.Marshal(key)
		return append(append(append(dst, k...), ':'), v...), nil
	}
	err = s.object(func(key string) error {
		if key != "model" {
			top, err = add(top, key)
			return err
		}
		return s.object(func(key string) error {
			switch key {
			case "vocab":
				vocab = make(map[string]int32, sizeHint(len(data), 100))
				return s.object(func(tok string) error {
					id, err := s.integer()
					vocab[tok] = int32(id)
					return err
				})
			case "merges":
				merges = make([]mergePair, 0, sizeHint(len(data), 60))
				return s.array(func() error {
					p, err := s.merge()
					merges = append(merges, p)
					return err
				})
			}
			model, err = add(model, key)
			return err
		})
	})
	if err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(append(top, '}'), f); err != nil {
		return nil, nil, err
	}
	return vocab, merges, json.Unmarshal(append(model, '}'), &f.Model)
}

// sizeHint guesses how many vocab entries or merges a file of n bytes holds, from about one
// per perEntry bytes (real files: 70–130 bytes a vocab entry), so that the map and slice are
// rarely grown while filling.
func sizeHint(n, perEntry int) int { return min(max(n/perEntry, 1<<12), 1<<20) }

// mergePair is a merge's two tokens, possibly pointing into the file's bytes.
type mergePair [2][]byte

// merge reads one merge, "a b" or ["a", "b"].
func (s *scanner) merge() (mergePair, error) {
	var p mergePair
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == '[' {
		n := 0
		err := s.array(func() error {
			v, err := s.bytes()
			if n < 2 {
				p[n] = v
			}
			n++
			return err
		})
		if err == nil && n != 2 {
			err = fmt.Errorf("merge %q has %d parts, want 2", p[0], n)
		}
		return p, err
	}
	l, err := s.bytes()
	if err != nil {
		return p, err
	}
	a, b, ok := bytes.Cut(l, []byte(" "))
	if !ok || bytes.IndexByte(b, ' ') >= 0 {
		return p, fmt.Errorf("merge %q is not two tokens separated by a space", l)
	}
	return mergePair{a, b}, nil
}
