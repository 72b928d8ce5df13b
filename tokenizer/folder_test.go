package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// TestVocabMergesMatchesTokenizerJSON builds a GPT-2 style folder (vocab.json, merges.txt)
// from RoBERTa's tokenizer.json and checks it encodes the golden corpus as the reference does
// with the tokenizer.json.
func TestVocabMergesMatchesTokenizerJSON(t *testing.T) {
	var f struct {
		Model struct {
			Vocab  map[string]int `json:"vocab"`
			Merges []string       `json:"merges"`
		} `json:"model"`
	}
	if err := json.Unmarshal(readReal(t, "roberta"), &f); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	vocab, err := json.Marshal(f.Model.Vocab)
	if err != nil {
		t.Fatal(err)
	}
	merges := "#version: 0.2\n" + strings.Join(f.Model.Merges, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "vocab.json"), vocab, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "merges.txt"), []byte(merges), 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	compareEncode(t, tk, "real_roberta")
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
	return readGzBytes(t, filepath.Join("testdata", "real", name))
}
