package tokenizer

import (
	"encoding/json"
	"unicode/utf8"
)

// parseAddedTokens reads tokenizer.json's added_tokens as encoding/json reads them into
// []addedTokenJSON: by hand when every token is an object of the known keys with plain values
// (Gemma 3 has 6,415), else with encoding/json, which then also words any error.
func parseAddedTokens(raw []byte) ([]addedTokenJSON, error) {
	if added, ok := scanAddedTokens(raw); ok {
		return added, nil
	}
	var added []addedTokenJSON
	err := json.Unmarshal(raw, &added)
	return added, err
}

// scanAddedTokens is the hand-read path of parseAddedTokens; ok is false for anything it does
// not read exactly as encoding/json would (other keys, null, numbers other than a plain
// integer, strings holding control characters or invalid UTF-8, bad syntax).
func scanAddedTokens(raw []byte) (added []addedTokenJSON, ok bool) {
	s := &scanner{data: raw}
	err := s.array(func() error {
		var tok addedTokenJSON
		err := s.object(func(key string) error {
			var err error
			switch key {
			case "id":
				tok.ID, err = s.plainInt()
			case "content":
				tok.Content, err = s.plainString()
			case "single_word":
				tok.SingleWord, err = s.boolean()
			case "lstrip":
				tok.Lstrip, err = s.boolean()
			case "rstrip":
				tok.Rstrip, err = s.boolean()
			case "normalized":
				tok.Normalized, err = s.boolean()
			case "special":
				tok.Special, err = s.boolean()
			default:
				err = errSyntax
			}
			return err
		})
		added = append(added, tok)
		return err
	})
	if s.ws(); err != nil || s.pos != len(s.data) {
		return nil, false
	}
	if added == nil {
		added = []addedTokenJSON{} // encoding/json makes an empty list of []
	}
	return added, true
}

// plainInt reads a non-negative integer as JSON writes it (no leading zero).
func (s *scanner) plainInt() (int, error) {
	s.ws()
	start := s.pos
	n, err := s.integer()
	if err == nil && s.data[start] == '0' && s.pos-start > 1 {
		err = errSyntax
	}
	return n, err
}

// plainString reads a string that is valid JSON as it stands.
func (s *scanner) plainString() (string, error) {
	b, err := s.bytes()
	if err != nil {
		return "", err
	}
	if !s.fresh { // unescaped strings were checked; a verbatim one is checked here
		for _, c := range b {
			if c < 0x20 {
				return "", errSyntax
			}
		}
		if !utf8.Valid(b) {
			return "", errSyntax
		}
	}
	return string(b), nil
}

// boolean reads true or false.
func (s *scanner) boolean() (bool, error) {
	s.ws()
	rest := s.data[s.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.pos += 4
		return true, nil
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.pos += 5
		return false, nil
	}
	return false, errSyntax
}
