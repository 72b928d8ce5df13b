package tokenizer

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLoadMapped loads real files large enough to be read through a memory map, which Load
// lets go before it returns, and checks that they encode, decode and name their tokens as the
// same files parsed from memory: nothing kept points into the mapping (a read of it would
// crash the test; the file, overwritten after the load, would show other bytes).
func TestLoadMapped(t *testing.T) {
	var corpus []string
	readGz(t, "corpus.json.gz", &corpus)
	for _, name := range []string{"t5", "gpt2", "marian"} { // Unigram, byte-level BPE, Metaspace BPE
		data := readReal(t, name)
		if len(data) < minMapped {
			t.Fatalf("%s has %d bytes, fewer than the %d a file needs to be mapped", name, len(data), minMapped)
		}
		file := filepath.Join(t.TempDir(), "tokenizer.json")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		mapped, err := Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, bytes.Repeat([]byte{'x'}, len(data)), 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := parse(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range corpus {
			if got, ids := mapped.Encode(text), want.Encode(text); !slices.Equal(got, ids) {
				t.Fatalf("%s: Encode(%q) = %v, want %v", name, text, got, ids)
			}
		}
		for id := range want.VocabSize() {
			got, _ := mapped.TokenBytes(id)
			tok, _ := want.TokenBytes(id)
			if !bytes.Equal(got, tok) || mapped.Decode([]int{id}, false) != want.Decode([]int{id}, false) {
				t.Fatalf("%s: token %d is %q, want %q", name, id, got, tok)
			}
		}
	}
}
