package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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

// FuzzWordPiece checks the WordPiece model (a trie walk) against the reference's algorithm
// written plainly — longest prefix first by shrinking the end, the prefix after the first
// subword, one unk for a word with an unmatched part — on BERT's vocabulary.
//
//	go test -run='^$' -fuzz=FuzzWordPiece -fuzztime=20s ./tokenizer
func FuzzWordPiece(f *testing.F) {
	for _, s := range []string{"hello", "unaffable", "##ing", "running", "éclair", "中文", "x" + strings.Repeat("a", 120), ""} {
		f.Add(s)
	}
	fuzzModel(f, "bert", 0, func(m model, s string) []int { return wordPiecePlain(m.(*wordPiece), s) })
}

// fuzzModel checks the model of a real file against plain, on valid UTF-8 pieces of at most
// maxLen bytes (0: any).
func fuzzModel(f *testing.F, name string, maxLen int, plain func(m model, s string) []int) {
	tk, err := parse(readReal(f, name))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || maxLen > 0 && len(s) > maxLen {
			return
		}
		var w work
		got := tk.model.encode(&w, s, nil)
		if want := plain(tk.model, s); !slices.Equal(got, want) {
			t.Fatalf("encode(%q) = %v, want %v", s, got, want)
		}
		tk.Encode(s)
	})
}

func wordPiecePlain(m *wordPiece, s string) []int {
	if utf8.RuneCountInString(s) > m.maxChars {
		return []int{int(m.unk)}
	}
	var out []int
	for start := 0; start < len(s); {
		end, found := len(s), -1
		for start < end {
			sub := s[start:end]
			if start > 0 {
				sub = m.prefix + sub
			}
			if id, ok := m.ids[sub]; ok {
				found = int(id)
				break
			}
			_, w := utf8.DecodeLastRuneInString(s[start:end])
			end -= w
		}
		if found < 0 {
			return []int{int(m.unk)}
		}
		out = append(out, found)
		start = end
	}
	return out
}

// FuzzUnigram checks the Unigram model (Viterbi over a trie) against a plain dynamic program
// over every substring's vocab lookup with the same tie rule, on T5's vocabulary.
//
//	go test -run='^$' -fuzz=FuzzUnigram -fuzztime=20s ./tokenizer
func FuzzUnigram(f *testing.F) {
	for _, s := range []string{"▁hello", "▁translate▁English", "▁x▁€", "€€", "▁中文", "<unk>", "▁" + strings.Repeat("x", 50)} {
		f.Add(s)
	}
	fuzzModel(f, "t5", 200, func(m model, s string) []int { return unigramPlain(m.(*unigram), s) })
}

func unigramPlain(m *unigram, s string) []int {
	n := len(s)
	score, start, id := make([]float64, n+1), make([]int, n+1), make([]int32, n+1)
	for i := range start {
		start[i] = -1
	}
	for pos := 0; pos < n; {
		_, mblen := utf8.DecodeRuneInString(s[pos:])
		single := false
		for end := pos + 1; end <= n; end++ {
			tok, ok := m.ids[s[pos:end]]
			if !ok {
				continue
			}
			if c := m.scores[tok] + score[pos]; start[end] < 0 || c > score[end] {
				score[end], start[end], id[end] = c, pos, tok
			}
			single = single || end-pos == mblen
		}
		if !single {
			if c := m.minScore - unkPenalty + score[pos]; start[pos+mblen] < 0 || c > score[pos+mblen] {
				score[pos+mblen], start[pos+mblen], id[pos+mblen] = c, pos, m.unk
			}
		}
		pos += mblen
	}
	var pieces []string
	var ids []int32
	for end := n; end > 0; end = start[end] {
		if id[end] == m.unk && len(ids) > 0 && ids[len(ids)-1] == m.unk {
			pieces[len(pieces)-1] = s[start[end]:end] + pieces[len(pieces)-1]
			continue
		}
		pieces, ids = append(pieces, s[start[end]:end]), append(ids, id[end])
	}
	var out []int
	for i := len(pieces) - 1; i >= 0; i-- {
		if ids[i] != m.unk {
			out = append(out, int(ids[i]))
			continue
		}
		var rev []int
		rev = m.appendUnk(rev, pieces[i])
		slices.Reverse(rev)
		out = append(out, rev...)
	}
	return out
}

// FuzzParse feeds tokenizer.json parsing arbitrary bytes, seeded with the real files'
// pipelines with a tiny vocabulary (testdata/fuzz_pipelines.json, written by
// tools/tokref/golden.js): it must return an error or a tokenizer, never panic, and a
// tokenizer must encode and decode without panicking.
//
//	go test -run='^$' -fuzz=FuzzParse -fuzztime=20s ./tokenizer
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "fuzz_pipelines.json"))
	if err != nil {
		f.Fatal(err)
	}
	var seeds map[string]json.RawMessage
	if err := json.Unmarshal(data, &seeds); err != nil {
		f.Fatal(err)
	}
	for _, seed := range seeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := parse(data)
		if err != nil {
			return
		}
		ids := tk.EncodeSpecial("ab a<x>b ▁é")
		tk.Decode(ids, false)
		tk.EncodePair("ab", "ba")
	})
}

// FuzzSentencePieceModel feeds the tokenizer.model parser arbitrary bytes: an error or a
// model, never a panic.
//
//	go test -run='^$' -fuzz=FuzzSentencePieceModel -fuzztime=20s ./tokenizer
func FuzzSentencePieceModel(f *testing.F) {
	spm := readRealFile(f, "marian.spm.gz")
	f.Add(spm[:4096])
	f.Add([]byte{0x0a, 0x09, 0x0a, 0x03, 'a', 'b', 'c', 0x15, 0, 0, 0x80, 0xbf, 0x12, 0x02, 0x18, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		if sp, err := parseSPModel(data); err == nil && len(sp.charsmap) > 0 {
			if cm, err := newCharsmap(sp.charsmap); err == nil {
				cm.apply("ab c\u0301 ﬁ")
			}
		}
	})
}

// FuzzCutWords checks that a SentencePiece-style piece cut into words (bpesplit.go) gives
// the ids of the piece merged whole, for Llama 2's and Gemma 3's vocabularies.
func FuzzCutWords(f *testing.F) {
	for _, s := range []string{"▁Hello▁world", "日本語の文章です▁and▁more", ">▁</a>▁x", "▁▁▁\t😀▁é", "a\x00b▁c"} {
		f.Add(s)
	}
	models := []*bpeModel{load(f, "llama2").model.(*bpeModel), load(f, "gemma3").model.(*bpeModel)}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.Repeat(strings.ToValidUTF8(s, "\uFFFD"), 1+splitLongPiece/(len(s)+1))
		for _, m := range models {
			var w work
			w.syms = m.symbols(&w, s)
			whole := m.merge(&w.bpeWork, nil)
			if cut := m.encodeCut(&w, s, nil); !slices.Equal(whole, cut) {
				t.Fatalf("%q: cut %v, whole %v", s, cut, whole)
			}
		}
	})
}
