package tokenizer

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"
)

// parseAddedTokens reads tokenizer.json's added_tokens as encoding/json reads them into
// []addedTokenJSON: by hand when every token is an object of the known keys with plain values
// (Gemma 3 has 6,415), else with encoding/json, which then also words any error.
//
// Then, as the reference (serde, no defaults), it refuses a token that lacks one of the seven
// fields or has null for one, and an id beyond u32: encoding/json would take them as zero values.
func parseAddedTokens(raw []byte) ([]addedTokenJSON, error) {
	if added, missing, have, ok := scanAddedTokenKeys(raw); ok {
		if missing >= 0 {
			return nil, missingAddedField(added[missing].Content, missing, have)
		}
		for i, tok := range added {
			if tok.ID > math.MaxUint32 {
				return nil, fmt.Errorf("token %d (%q): id %d is not a u32", i, tok.Content, tok.ID)
			}
		}
		return added, nil
	}
	var added []addedTokenJSON
	if err := json.Unmarshal(raw, &added); err != nil {
		return added, err
	}
	return added, checkAddedFields(raw)
}

// addedFields are the fields of an added token in tokenizer.json, all required by the reference.
var addedFields = [...]string{"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"}

// allAddedFields is the mask of every field in addedFields.
const allAddedFields = 1<<len(addedFields) - 1

// checkAddedFields is the required-field check of added tokens encoding/json has read.
func checkAddedFields(raw []byte) error {
	var toks []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &toks); err != nil {
		return err
	}
	for i, tok := range toks {
		var have uint8
		for k, f := range addedFields {
			v, ok := tok[f]
			if !ok {
				continue
			}
			if string(v) == "null" {
				return fmt.Errorf("token %d: %s is null", i, f)
			}
			have |= 1 << k
		}
		var content string
		_ = json.Unmarshal(tok["content"], &content)
		if have != allAddedFields {
			return missingAddedField(content, i, have)
		}
		var id uint64
		if err := json.Unmarshal(tok["id"], &id); err != nil || id > math.MaxUint32 {
			return fmt.Errorf("token %d (%q): id %s is not a u32", i, content, tok["id"])
		}
	}
	return nil
}

// missingAddedField words the error of token i, which has the fields of mask have.
func missingAddedField(content string, i int, have uint8) error {
	for k, f := range addedFields {
		if have&(1<<k) == 0 {
			return fmt.Errorf("token %d (%q): missing field %s", i, content, f)
		}
	}
	return nil
}

// scanAddedTokens is the hand-read path of parseAddedTokens; ok is false for anything it does
// not read exactly as encoding/json would (other keys, null, numbers other than a plain
// integer, strings holding control characters or invalid UTF-8, bad syntax).
func scanAddedTokens(raw []byte) (added []addedTokenJSON, ok bool) {
	added, _, _, ok = scanAddedTokenKeys(raw)
	return added, ok
}

// scanAddedTokenKeys is scanAddedTokens that also tells the first token lacking one of
// addedFields (-1 when none does) and the fields it has.
func scanAddedTokenKeys(raw []byte) (added []addedTokenJSON, missing int, missingHave uint8, ok bool) {
	s := &scanner{data: raw}
	missing = -1
	err := s.array(func() error {
		var tok addedTokenJSON
		var have uint8
		err := s.object(func(key string) error {
			var err error
			switch key {
			case "id":
				tok.ID, err = s.plainInt()
				have |= 1 << 0
			case "content":
				tok.Content, err = s.plainString()
				have |= 1 << 1
			case "single_word":
				tok.SingleWord, err = s.boolean()
				have |= 1 << 2
			case "lstrip":
				tok.Lstrip, err = s.boolean()
				have |= 1 << 3
			case "rstrip":
				tok.Rstrip, err = s.boolean()
				have |= 1 << 4
			case "normalized":
				tok.Normalized, err = s.boolean()
				have |= 1 << 5
			case "special":
				tok.Special, err = s.boolean()
				have |= 1 << 6
			default:
				err = errSyntax
			}
			return err
		})
		if have != allAddedFields && missing < 0 {
			missing, missingHave = len(added), have
		}
		added = append(added, tok)
		return err
	})
	if s.ws(); err != nil || s.pos != len(s.data) {
		return nil, -1, 0, false
	}
	if added == nil {
		added = []addedTokenJSON{} // encoding/json makes an empty list of []
	}
	return added, missing, missingHave, true
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
