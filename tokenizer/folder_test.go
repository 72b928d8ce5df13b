package tokenizer

import (
	"os"
	"path/filepath"
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

// TestVocabMergesMatchesTokenizerJSON loads GPT-2's folder as saved without tokenizer.json
// (vocab.json, merges.txt, tokenizer_config.json with its added token) and checks it against
// the reference's goldens of GPT-2's tokenizer.json: encodes, special tokens, decodes.
func TestVocabMergesMatchesTokenizerJSON(t *testing.T) {
	dir := t.TempDir()
	for name, file := range map[string]string{"vocab.json": "gpt2-vocab.json.gz", "merges.txt": "gpt2-merges.txt.gz"} {
		if err := os.WriteFile(filepath.Join(dir, name), readRealFile(t, file), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := os.ReadFile(filepath.Join("testdata", "real", "gpt2-tokenizer_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, tk, "real_gpt2")
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
