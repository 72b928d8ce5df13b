package tokenizer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRoundTrip checks, for any valid UTF-8 input and each tokenizer, that decoding the user
// encoding gives back the normalized input — NFC for Qwen3, the input itself for the other
// byte-level files, the input with its meta spaces "▁" read as spaces for the
// SentencePiece-style ones (their decoders turn every "▁" into a space and strip the space
// they prepended) — that streaming gives the same text, and that neither entry point panics.
// Run it with
//
//	go test -run='^$' -fuzz=FuzzRoundTrip -fuzztime=20s ./tokenizer
func FuzzRoundTrip(f *testing.F) {
	var corpus []string
	readGz(f, "corpus.json.gz", &corpus)
	for _, s := range corpus {
		f.Add(s)
	}
	var tks []*Pipeline
	for _, name := range append(tokenizerNames, "stories260k") {
		tks = append(tks, load(f, name))
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tk := range tks {
			tk.EncodeSpecial(s)
			ids := tk.Encode(s)
			if !utf8.ValidString(s) {
				continue
			}
			want := tk.norm.apply(s)
			if _, bpe := tk.model.(*bpeModel); bpe && !tk.pre.byteLevel {
				want = strings.ReplaceAll(s, "▁", " ")
			}
			if got := tk.Decode(ids, false); got != want {
				t.Fatalf("Decode(Encode(%q)) = %q, want %q", s, got, want)
			}
			if got := streamAll(tk, ids, false); got != want {
				t.Fatalf("streamed Decode(Encode(%q)) = %q, want %q", s, got, want)
			}
		}
	})
}
