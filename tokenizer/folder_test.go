package tokenizer

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/testkit/testenv"

	"github.com/google/go-cmp/cmp"
)

// TestSentencePieceModelMatchesItsTokenizerJSON builds the tokenizer from Marian's
// SentencePiece model (tokenizer.model) and checks it encodes the golden corpus as the
// reference does with the tokenizer.json converted from the same model.
func TestSentencePieceModelMatchesItsTokenizerJSON(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.model"), readRealFile(t, "marian.spm.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	compareEncode(t, tk, "real_marian")
}

// TestVocabMergesMatchesTokenizerJSON loads GPT-2's folder as saved without tokenizer.json
// (vocab.json, merges.txt, tokenizer_config.json with its added token) and checks it against
// the reference's goldens of GPT-2's tokenizer.json: encodes, special tokens, decodes.
func TestVocabMergesMatchesTokenizerJSON(t *testing.T) {
	tk := loadFolder(t, map[string][]byte{"vocab.json": readRealFile(t, "gpt2-vocab.json.gz"),
		"merges.txt": readRealFile(t, "gpt2-merges.txt.gz")}, filepath.Join("testdata", "real", "gpt2-tokenizer_config.json"))
	checkGolden(t, tk, "real_gpt2")
}

// loadFolder writes files, and a copy of the tokenizer_config.json at config, into a temporary
// folder and loads the tokenizer from it.
func loadFolder(t *testing.T, files map[string][]byte, config string) *Pipeline {
	t.Helper()
	cfg, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files["tokenizer_config.json"] = cfg
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tk, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// compareEncode checks Encode and Decode of tk on the golden corpus of name.
func compareEncode(t *testing.T, tk *Pipeline, name string) {
	t.Helper()
	var corpus []string
	readGz(t, "corpus.json.gz", &corpus)
	var g goldenFile
	readGz(t, "golden_"+name+".json.gz", &g)
	failed := 0
	for i, c := range g.Cases {
		if diff := cmp.Diff(nonNil(c.IDs), nonNil(tk.Encode(corpus[i]))); diff != "" && failed < 10 {
			failed++
			t.Errorf("Encode(%q) (-want +got):\n%s", corpus[i], diff)
		}
	}
}

func readRealFile(t testing.TB, name string) []byte {
	t.Helper()
	return testenv.Gunzip(t, filepath.Join("testdata", "real", name))
}

// TestSentencePieceBPEModel writes the stories260K model's vocabulary as a SentencePiece BPE
// tokenizer.model (pieces in id order scoring lower and lower, as SentencePiece's BPE trainer
// writes them; <unk>, control and byte pieces typed) and checks the tokenizer built from it as
// Llama's converter does against the reference's goldens of the model's tokenizer.json:
// encodes, BOS, special tokens, decodes.
func TestSentencePieceBPEModel(t *testing.T) {
	src := testenv.SharedModel(t, "stories260K")
	var f struct {
		Model struct {
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	data, err := os.ReadFile(filepath.Join(src, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	pieces := make([]string, len(f.Model.Vocab))
	for tok, id := range f.Model.Vocab {
		pieces[id] = tok
	}
	var proto []byte
	for id, p := range pieces {
		typ := 1
		switch {
		case id == 0:
			typ = 2
		case id < 3:
			typ = 3
		case strings.HasPrefix(p, "<0x") && len(p) == 6:
			typ = 6
		}
		var piece []byte
		piece = protoBytes(piece, 1, []byte(p))
		piece = binary.LittleEndian.AppendUint32(append(piece, 2<<3|5), math.Float32bits(-float32(id))) // score, fixed32
		piece = binary.AppendUvarint(append(piece, 3<<3), uint64(typ))                                  // type, varint
		proto = protoBytes(proto, 1, piece)
	}
	trainer := binary.AppendUvarint([]byte{3 << 3}, 2)                      // model_type BPE
	trainer = binary.AppendUvarint(binary.AppendUvarint(trainer, 35<<3), 1) // byte_fallback
	proto = protoBytes(proto, 2, trainer)
	tk := loadFolder(t, map[string][]byte{"tokenizer.model": proto}, filepath.Join(src, "tokenizer_config.json"))
	checkGolden(t, tk, "stories260k")
}

// protoBytes appends a length-delimited protobuf field.
func protoBytes(dst []byte, field int, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(field)<<3|2)
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}
