package tokenizer

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/internal/testkit/testenv"

	"github.com/google/go-cmp/cmp"
)

// TestStoriesReference checks the real model's tokenizer against the ids its README gives
// for "Once upon a time" with special tokens (the reference's encode, add_special_tokens).
func TestStoriesReference(t *testing.T) {
	tk := load(t, "stories260k")
	want := []int{1, 403, 407, 261, 378}
	if diff := cmp.Diff(want, tk.AddSpecialTokens(tk.EncodeSpecial("Once upon a time"))); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if got := tk.Decode(want, true); got != "Once upon a time" {
		t.Errorf("Decode skipping special = %q", got)
	}
	if got := tk.Decode(want, false); got != "<s> Once upon a time" {
		t.Errorf("Decode = %q", got)
	}
}

// TestSentencePieceEncodeParts checks that parts encode as their joined text, including the
// whitespace a token's rstrip takes from the user text after it (Phi-3's <|user|>), and that
// the meta space is prepended only where the reference prepends it.
func TestSentencePieceEncodeParts(t *testing.T) {
	cases := []struct {
		tokenizer string
		parts     []Part
	}{
		{"llama2", []Part{{Text: "<s>[INST] ", Special: true}, {Text: "Hi there"}, {Text: " [/INST]", Special: true}}},
		{"llama2", []Part{{Text: "<s>", Special: true}, {Text: "  spaced  "}, {Text: "</s>", Special: true}}},
		{"gemma3", []Part{{Text: "<bos><start_of_turn>user\n", Special: true}, {Text: "Hi\n\nthere  "}, {Text: "<end_of_turn>\n<start_of_turn>model\n", Special: true}}},
		{"llama2_metaspace", []Part{{Text: "<|user|>\n", Special: true}, {Text: "\n  Hello"}, {Text: "<|end|>\n<|assistant|>\n", Special: true}}},
		{"llama2_metaspace", []Part{{Text: "Start ", Special: true}, {Text: "x"}}},
		{"llama2_always", []Part{{Text: "a", Special: true}, {Text: "b \t"}, {Text: "<mask> [WORD] <tab>", Special: true}, {Text: " \n z"}}},
	}
	for i, c := range cases {
		tk := load(t, c.tokenizer)
		joined := ""
		for _, p := range c.parts {
			joined += p.Text
		}
		if got, want := tk.EncodeParts(c.parts), tk.EncodeSpecial(joined); !slices.Equal(got, want) {
			t.Errorf("case %d (%s): EncodeParts %v, EncodeSpecial(joined) %v", i, c.tokenizer, got, want)
		}
	}
}

func TestSentencePieceStreamStepByStep(t *testing.T) {
	tk := load(t, "llama2")
	id := func(tok string) int { return must(tk.TokenID(tok)) }
	tests := []struct {
		name  string
		skip  bool
		ids   []int
		steps []string // what each Add returns, then Flush
	}{
		{"strip takes the first space only", false, []int{id("▁Hello"), id("▁world"), id("!")}, []string{"Hello", " world", "!", ""}},
		{"a lone space waits for the next token", false, []int{id("▁"), id("▁Hello")}, []string{"", " Hello", ""}},
		{"skipped BOS before the text", true, []int{1, id("▁Hello"), id("▁world")}, []string{"", "Hello", " world", ""}},
		{"BOS shown keeps the space", false, []int{1, id("▁Hello")}, []string{"<s>", " Hello", ""}},
		{"a byte run waits for its end", false, []int{id("▁the"), id("<0xE4>"), id("<0xBD>"), id("<0xA0>"), id("!")}, []string{"the", "", "", "", "你!", ""}},
		{"emoji over four byte tokens, then flush", false, []int{id("<0xF0>"), id("<0x9F>"), id("<0x98>"), id("<0x80>")}, []string{"", "", "", "", "😀"}},
		{"invalid run is one U+FFFD per byte", false, []int{id("<0xE4>"), id("<0xBD>"), id("▁x")}, []string{"", "", "\uFFFD\uFFFD x", ""}},
		{"a skipped special token does not end a byte run", true, []int{id("<0xE4>"), 2, id("<0xBD>"), id("<0xA0>"), id("▁")}, []string{"", "", "", "", "你 ", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkStream(t, tk, tt.ids, tt.skip, tt.steps)
		})
	}
}

// TestStreamDecoderAfter streams a continuation of a prompt: the space before the first new
// word stays, as in Decode of prompt and continuation together.
func TestStreamDecoderAfter(t *testing.T) {
	for _, name := range []string{"llama2", "stories260k", "qwen3"} {
		t.Run(name, func(t *testing.T) {
			tk := load(t, name)
			prompt := tk.AddSpecialTokens(tk.EncodeSpecial("Once upon a time"))
			more := tk.Encode(" there was 😀 a girl")[1:] // without the meta space prepended to the text
			if tk.pre.byteLevel {
				more = tk.Encode(" there was 😀 a girl")
			}
			want := strings.TrimPrefix(tk.Decode(append(slices.Clone(prompt), more...), true), tk.Decode(prompt, true))
			if !strings.HasPrefix(want, " there") {
				t.Fatalf("test setup: continuation %q", want)
			}
			for _, tok := range []Tokenizer{tk, struct{ Tokenizer }{tk}} {
				d := NewStreamDecoderAfter(tok, true, prompt)
				var b strings.Builder
				for _, id := range more {
					b.WriteString(d.Add(id))
				}
				b.WriteString(d.Flush())
				if b.String() != want {
					t.Errorf("%T: streamed %q, want %q", tok, b.String(), want)
				}
			}
		})
	}
}

// TestSentencePieceStreamMatchesDecode streams the golden id sequences of the edited files
// too (the real ones are in TestStreamDecoderMatchesDecode).
func TestSentencePieceStreamMatchesDecode(t *testing.T) {
	for _, name := range []string{"stories260k", "llama2_metaspace", "llama2_always"} {
		t.Run(name, func(t *testing.T) {
			tk := load(t, name)
			var g goldenFile
			readGz(t, "golden_"+name+".json.gz", &g)
			for _, c := range g.Cases {
				for _, skip := range []bool{false, true} {
					ids := c.Special
					if ids == nil {
						ids = c.IDs
					}
					if got, want := streamAll(tk, ids, skip), tk.Decode(ids, skip); got != want {
						t.Errorf("stream of %v (skip %v) = %q, Decode = %q", ids, skip, got, want)
					}
				}
			}
		})
	}
}

// TestSentencePieceMergeLongMatchesSmall checks the heap merge against the rescanning one on
// SentencePiece symbols (characters, byte tokens).
func TestSentencePieceMergeLongMatchesSmall(t *testing.T) {
	tk := load(t, "llama2")
	r := rand.New(rand.NewPCG(3, 4))
	parts := []string{"▁", "a", "b", "the", "▁the", "ing", "你", "😀", "\n", "é", "e\u0301", "\u0378", "1", "."}
	var w work
	m := tk.model.(*bpeModel)
	for range 500 {
		var sb strings.Builder
		for n := 2 + r.IntN(smallWord); n > 0; n-- {
			sb.WriteString(parts[r.IntN(len(parts))])
		}
		syms := slices.Clone(m.symbols(&w, sb.String()))
		w.syms = append(w.syms[:0], syms...)
		small := m.mergeSmall(&w.bpeWork, nil)
		w.syms = append(w.syms[:0], syms...)
		long := m.mergeLong(&w.bpeWork, nil)
		if diff := cmp.Diff(small, long); diff != "" {
			t.Fatalf("merge of %q (-small +long):\n%s", sb.String(), diff)
		}
	}
}

// TestTinySentencePiece covers unk, fuse_unk and byte fallback with missing byte tokens on a
// hand-made vocabulary (the real files have every <0xNN>, so unk never happens there).
func TestTinySentencePiece(t *testing.T) {
	tests := []struct {
		name    string
		fuseUnk bool
		text    string
		want    []int
	}{
		{"merges", true, "ab ab", []int{7, 7}},
		{"byte fallback", true, "a\n", []int{6, 4}},
		{"unk fused", true, "aéé", []int{6, 0}},
		{"unk not fused", false, "aéé", []int{6, 0, 0}},
		{"pending unk waits past byte tokens", true, "é\n", []int{3, 4, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk, err := Load(tinySP(t, func(m map[string]any) { modelOf(m)["fuse_unk"] = tt.fuseUnk }))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tk.Encode(tt.text)); diff != "" {
				t.Errorf("Encode(%q) (-want +got):\n%s", tt.text, diff)
			}
			if diff := cmp.Diff(append([]int{1}, tt.want...), tk.AddSpecialTokens(tk.Encode(tt.text))); diff != "" {
				t.Errorf("AddSpecialTokens (-want +got):\n%s", diff)
			}
		})
	}
}

// tinySP writes a small Llama-2-layout tokenizer.json, changed by edit, into a temporary
// folder: <unk>=0, <s>=1, a=2, ▁=3, <0x0A>=4 (the only byte token), b=5, ▁a=6, ▁ab=7.
func tinySP(t *testing.T, edit func(m map[string]any)) string {
	return tinyTokenizer(t, func(m map[string]any) {
		m["added_tokens"] = []any{
			map[string]any{"id": 0, "content": "<unk>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
			map[string]any{"id": 1, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
		}
		m["normalizer"] = map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Prepend", "prepend": "▁"},
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"},
		}}
		m["pre_tokenizer"] = nil
		m["post_processor"] = map[string]any{"type": "TemplateProcessing",
			"single": []any{map[string]any{"SpecialToken": map[string]any{"id": "<s>", "type_id": 0}},
				map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}},
			"pair": []any{map[string]any{"SpecialToken": map[string]any{"id": "<s>", "type_id": 0}},
				map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "B", "type_id": 1}}},
			"special_tokens": map[string]any{"<s>": map[string]any{"id": "<s>", "ids": []any{1}, "tokens": []any{"<s>"}}}}
		m["decoder"] = map[string]any{"type": "Sequence", "decoders": []any{
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": "▁"}, "content": " "},
			map[string]any{"type": "ByteFallback"}, map[string]any{"type": "Fuse"},
			map[string]any{"type": "Strip", "content": " ", "start": 1, "stop": 0},
		}}
		md := modelOf(m)
		md["vocab"] = map[string]any{"<unk>": 0, "<s>": 1, "a": 2, "▁": 3, "<0x0A>": 4, "b": 5, "▁a": 6, "▁ab": 7}
		md["merges"] = [][]string{{"▁", "a"}, {"▁a", "b"}}
		md["byte_fallback"], md["unk_token"] = true, "<unk>"
		if edit != nil {
			edit(m)
		}
	})
}

// TestCutAtMetaspace checks that cutting a SentencePiece-style piece before "▁" (bpesplit.go)
// changes no id: the bench text's first 200 KB, and random runs of words, spaces, unknown and
// fallback characters, merged whole and cut, through a cold and a warm word cache.
func TestCutAtMetaspace(t *testing.T) {
	text := string(testenv.Gunzip(t, filepath.Join("testdata", "bench.txt.gz")))
	text = strings.ToValidUTF8(text[:200_000], "")
	parts := []string{"▁", "▁▁", "the", "▁the", "a", "😀", "\x00", "é", "ß", "日本", "<s>", "▁▁▁", "ing", "\t", "\uFFFD", ">", "</", "a>"}
	r := rand.New(rand.NewPCG(7, 7))
	for _, name := range []string{"llama2", "gemma3", "stories260k"} {
		t.Run(name, func(t *testing.T) {
			m := load(t, name).model.(*bpeModel)
			if !m.cutMeta {
				t.Fatalf("%s is not cut", name)
			}
			pieces := []string{strings.ReplaceAll(" "+text, " ", "▁")}
			for range 300 {
				var sb strings.Builder
				for n := r.IntN(120); n > 0; n-- {
					sb.WriteString(parts[r.IntN(len(parts))])
				}
				pieces = append(pieces, sb.String())
			}
			var w work
			for pass := range 2 { // the second pass meets the words in the cache
				for _, p := range pieces {
					w.syms = m.symbols(&w, p)
					whole := m.merge(&w.bpeWork, nil)
					cut := m.encodeCut(&w, p, nil)
					if !slices.Equal(whole, cut) {
						t.Fatalf("pass %d: %q cut gives other ids than whole", pass, p[:min(len(p), 200)])
					}
				}
			}
		})
	}
}
