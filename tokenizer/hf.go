//go:build hftokenizers

package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"

	hf "github.com/daulet/tokenizers"
)

// HF is the Tokenizer interface over github.com/daulet/tokenizers, the Hugging Face Rust
// library linked through cgo (build tag hftokenizers, needs libtokenizers.a). It accepts every
// tokenizer.json the Rust library does, including the ones Load refuses.
type HF struct {
	full  *hf.Tokenizer // the file as it is: EncodeSpecial and Decode
	plain *hf.Tokenizer // the file without added tokens: Encode of user content

	ids          map[string]int
	special      map[int]bool
	vocabSize    int
	chatTemplate string
	specials     SpecialTokens
}

var _ Tokenizer = (*HF)(nil)

// LoadHF reads a tokenizer.json (or the folder holding it) with the Rust library.
func LoadHF(path string) (*HF, error) {
	src, err := findSource(path)
	if err != nil {
		return nil, err
	}
	if src.kind != sourceJSON {
		return nil, fmt.Errorf("load tokenizer %s: the Rust library reads tokenizer.json only", src.file)
	}
	file := src.file
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	var doc map[string]json.RawMessage
	var meta struct {
		AddedTokens []addedTokenJSON `json:"added_tokens"`
		Model       struct {
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", file, err)
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", file, err)
	}
	doc["added_tokens"] = json.RawMessage("[]")
	plainData, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	t := &HF{ids: meta.Model.Vocab, special: map[int]bool{}}
	if t.ids == nil {
		t.ids = map[string]int{}
	}
	for _, id := range t.ids {
		t.vocabSize = max(t.vocabSize, id+1)
	}
	for _, a := range meta.AddedTokens {
		t.ids[a.Content] = a.ID
		t.special[a.ID] = a.Special
		t.vocabSize = max(t.vocabSize, a.ID+1)
	}
	if t.full, err = hf.FromBytes(data); err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", file, err)
	}
	if t.plain, err = hf.FromBytes(plainData); err != nil {
		t.full.Close()
		return nil, fmt.Errorf("load tokenizer %s: %w", file, err)
	}
	cfg, err := ReadFolderConfig(src.dir)
	if err != nil {
		t.Close()
		return nil, err
	}
	t.chatTemplate, t.specials = cfg.ChatTemplate, cfg.Special
	return t, nil
}

// Close frees the Rust tokenizers.
func (t *HF) Close() error {
	t.full.Close()
	return t.plain.Close()
}

func (t *HF) Encode(text string) []int        { return toInts(t.plain.Encode(text, false)) }
func (t *HF) EncodeSpecial(text string) []int { return toInts(t.full.Encode(text, false)) }
func (t *HF) VocabSize() int                  { return t.vocabSize }
func (t *HF) IsSpecial(id int) bool           { return t.special[id] }
func (t *HF) ChatTemplate() string            { return t.chatTemplate }
func (t *HF) SpecialTokens() SpecialTokens    { return t.specials }

func (t *HF) TokenID(token string) (int, bool) {
	id, ok := t.ids[token]
	return id, ok
}

func (t *HF) Decode(ids []int, skipSpecial bool) string {
	u := make([]uint32, 0, len(ids))
	for _, id := range ids {
		if id >= 0 && id < t.vocabSize {
			u = append(u, uint32(id))
		}
	}
	return t.full.Decode(u, skipSpecial)
}

func toInts(ids []uint32, _ []string) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}
