package tokenizer

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/testenv"
)

// The golden files are written by tools/tokref/golden.js from the reference implementation.

type goldenFile struct {
	Tokenizer string
	SHA256    string
	Reference string
	LoadError string `json:"load_error"` // the reference refused the file
	Pairs     []struct {
		A       int   `json:"a"`
		IDs     []int `json:"ids"`
		TypeIDs []int `json:"type_ids"`
	}
	Cases []struct {
		Pieces      []string `json:"pieces"`
		IDs         []int    `json:"ids"`
		Special     []int    `json:"special"`
		Post        []int    `json:"post"`
		Decoded     *string  `json:"decoded"`
		DecodedSkip *string  `json:"decoded_skip"`
	}
	Decodes []struct {
		IDs      []int  `json:"ids"`
		Text     string `json:"text"`
		TextSkip string `json:"text_skip"`
	}
}

// tokenizerNames are the installed real tokenizer files: byte-level BPE, then
// SentencePiece-style BPE (gemini is Gemma 1/2's layout), then byte-level BPE of other
// vocabularies (o200k, cl100k, Claude's, gpt-oss's o200k_harmony).
var tokenizerNames = []string{"qwen3", "llama3", "deepseek_v3", "llama2", "gemma3", "gemini", "gpt4o", "gpt35turbo", "claude", "gptoss"}

// realNames are the real tokenizer.json files of more families kept in testdata/real (see
// SOURCES.md there), golden as "real_" + name.
var realNames = []string{"bert", "bert_zh", "chatglm3", "clip", "cohere", "falcon", "gpt2", "marian", "minilm", "olmo1", "olmo2",
	"phi2", "phi3", "roberta", "smollm", "t5", "whisper", "wiki", "yi"}

// goldenNames adds the stories260K model's tokenizer, edited files (see loadEdited) and the
// real files.
var goldenNames = append(append(tokenizerNames, "qwen3_o200k", "stories260k", "llama2_metaspace", "llama2_always", "gpt2_digits", "t5_first", "t5_bert_first", "t5_nfd_first", "t5_nfkc_first", "t5_byte_fallback", "wiki_scripts", "wiki_word_split", "wiki_intervals", "wiki_props", "wiki_fold", "wiki_prop_names", "wiki_fold_class", "marian_t5", "marian_unk0"),
	prefixed("real_", realNames)...)

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// readReal returns the bytes of a real tokenizer.json kept gzipped in testdata/real.
func readReal(t testing.TB, name string) []byte {
	t.Helper()
	return testenv.Gunzip(t, filepath.Join("testdata", "real", name+".json.gz"))
}

func readGz(t testing.TB, name string, v any) {
	t.Helper()
	if err := json.Unmarshal(testenv.Gunzip(t, filepath.Join("testdata", name)), v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

var loaded sync.Map // name → *Pipeline, shared by the tests of one run

func load(t testing.TB, name string) *Pipeline {
	t.Helper()
	if tk, ok := loaded.Load(name); ok {
		return tk.(*Pipeline)
	}
	var tk *Pipeline
	var err error
	switch name {
	case "qwen3_o200k":
		tk = loadO200k(t)
	case "stories260k":
		tk, err = Load(testenv.SharedModel(t, "stories260K"))
	case "llama2_metaspace", "llama2_always", "gpt2_digits", "t5_first", "t5_bert_first", "t5_nfd_first", "t5_nfkc_first", "t5_byte_fallback", "wiki_scripts", "wiki_word_split", "wiki_intervals", "wiki_props", "wiki_fold", "wiki_prop_names", "wiki_fold_class", "marian_t5", "marian_unk0":
		tk = loadVariant(t, name)
	case "real_added_tokens":
		_, err = parse(readReal(t, "added_tokens"))
		t.Fatalf("real_added_tokens loads with error %v; the reference refuses it", err)
	default:
		if real, ok := strings.CutPrefix(name, "real_"); ok {
			tk, err = parse(readReal(t, real))
			break
		}
		tk, err = Load(testenv.TokenizerDir(t, name))
	}
	if err != nil {
		t.Fatal(err)
	}
	loaded.Store(name, tk)
	return tk
}

func TestGolden(t *testing.T) {
	for _, name := range goldenNames {
		t.Run(name, func(t *testing.T) { checkGolden(t, load(t, name), name) })
	}
}

// TestGoldenRefused checks that the files the reference refuses are refused.
func TestGoldenRefused(t *testing.T) {
	for _, name := range []string{"added_tokens"} {
		var g goldenFile
		readGz(t, "golden_real_"+name+".json.gz", &g)
		if g.LoadError == "" {
			t.Fatalf("%s: the reference loads it: move it to realNames", name)
		}
		if _, err := parse(readReal(t, name)); err == nil {
			t.Errorf("%s loads; the reference refuses it: %s", name, g.LoadError)
		}
	}
}

// loadO200k loads Qwen3's tokenizer.json with its Split regex replaced by GPT-4o's, as
// tools/tokref/golden.js does: GPT-4o's regex on another vocabulary (GPT-4o's own file is gpt4o).
func loadO200k(t testing.TB) *Pipeline {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.TokenizerDir(t, "qwen3"), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var qwen string
	for re, m := range splitPatterns {
		if strings.Contains(re, `\p{N}|`) && m != nil {
			qwen = re
		}
	}
	from, to := jsonString(t, qwen), jsonString(t, o200kPattern)
	if !bytes.Contains(data, from) {
		t.Fatal("Qwen3 regex not found in its tokenizer.json")
	}
	tk, err := parse(bytes.Replace(data, from, to, 1))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// variant is an edit of a tokenizer.json (see loadVariant), with the strings its golden file
// has after the corpus.
type variant struct {
	Base        string
	Set         map[string]json.RawMessage
	SetModel    map[string]json.RawMessage `json:"set_model"` // keys of the model replaced
	AddedTokens []json.RawMessage          `json:"added_tokens"`
	Texts       []string
}

// readVariants reads testdata/variants.json, written by tools/tokref/golden.js.
func readVariants(t testing.TB) map[string]variant {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "variants.json"))
	if err != nil {
		t.Fatal(err)
	}
	var variants map[string]variant
	if err := json.Unmarshal(data, &variants); err != nil {
		t.Fatal(err)
	}
	return variants
}

// loadVariant loads a base tokenizer.json with the edit testdata/variants.json describes
// (top-level keys replaced, then set_model's keys of the model, added tokens appended), as
// tools/tokref/golden.js does.
func loadVariant(t testing.TB, name string) *Pipeline {
	t.Helper()
	v, ok := readVariants(t)[name]
	if !ok {
		t.Fatalf("no variant %s in testdata/variants.json", name)
	}
	var data []byte
	var err error
	if real, ok := strings.CutPrefix(v.Base, "real_"); ok {
		data = readReal(t, real)
	} else if data, err = os.ReadFile(filepath.Join(testenv.TokenizerDir(t, v.Base), "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	maps.Copy(doc, v.Set)
	if len(v.SetModel) > 0 {
		var model map[string]json.RawMessage
		if err := json.Unmarshal(doc["model"], &model); err != nil {
			t.Fatal(err)
		}
		maps.Copy(model, v.SetModel)
		if doc["model"], err = json.Marshal(model); err != nil {
			t.Fatal(err)
		}
	}
	var added []json.RawMessage
	if err := json.Unmarshal(doc["added_tokens"], &added); err != nil {
		t.Fatal(err)
	}
	if doc["added_tokens"], err = json.Marshal(append(added, v.AddedTokens...)); err != nil {
		t.Fatal(err)
	}
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	tk, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func jsonString(t testing.TB, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b.Bytes())
}

// checkGolden compares tk with the reference on every golden string and id sequence.
func checkGolden(t *testing.T, tk Tokenizer, name string) {
	var corpus []string
	readGz(t, "corpus.json.gz", &corpus)
	corpus = append(corpus, readVariants(t)[name].Texts...)
	var g goldenFile
	readGz(t, "golden_"+name+".json.gz", &g)
	if len(g.Cases) != len(corpus) {
		t.Fatalf("golden file has %d cases for %d corpus strings: rerun tools/tokref/golden.js", len(g.Cases), len(corpus))
	}
	failed := 0
	for i, c := range g.Cases {
		text := corpus[i]
		if c.Special == nil { // the golden files leave out values equal to their defaults
			c.Special = c.IDs
		}
		if c.Decoded == nil {
			c.Decoded = &text
		}
		if c.DecodedSkip == nil {
			c.DecodedSkip = c.Decoded
		}
		check := func(what string, want, got any) {
			if diff := cmp.Diff(want, got); diff != "" && failed < 20 {
				failed++
				t.Errorf("%s(%q) (-want +got):\n%s", what, text, diff)
			}
		}
		if b, ok := tk.(*Pipeline); ok {
			if c.Pieces != nil {
				check("pre-tokenize", c.Pieces, b.pieces(text))
			}
			if c.Post == nil {
				c.Post = c.Special
			}
			check("AddSpecialTokens", nonNil(c.Post), nonNil(b.AddSpecialTokens(c.Special)))
		}
		check("Encode", nonNil(c.IDs), nonNil(tk.Encode(text)))
		check("EncodeSpecial", nonNil(c.Special), nonNil(tk.EncodeSpecial(text)))
		check("Decode", *c.Decoded, tk.Decode(c.Special, false))
		check("Decode skipSpecial", *c.DecodedSkip, tk.Decode(c.Special, true))
	}
	if b, ok := tk.(*Pipeline); ok {
		for _, p := range g.Pairs {
			got := b.EncodePair(corpus[p.A], corpus[p.A+1])
			want := Encoding{IDs: nonNil(p.IDs), TypeIDs: nonNil(p.TypeIDs)}
			if diff := cmp.Diff(want, Encoding{IDs: nonNil(got.IDs), TypeIDs: nonNil(got.TypeIDs)}); diff != "" && failed < 20 {
				failed++
				t.Errorf("EncodePair(%q, %q) (-want +got):\n%s", corpus[p.A], corpus[p.A+1], diff)
			}
		}
	}
	for _, d := range g.Decodes {
		if got := tk.Decode(d.IDs, false); got != d.Text {
			t.Errorf("Decode(%v) = %q, want %q", d.IDs, got, d.Text)
		}
		if got := tk.Decode(d.IDs, true); got != d.TextSkip {
			t.Errorf("Decode(%v, skip) = %q, want %q", d.IDs, got, d.TextSkip)
		}
	}
}

func nonNil(ids []int) []int {
	if ids == nil {
		return []int{}
	}
	return ids
}

// pieces returns the pre-tokenizer's pieces of the normalized text, in byte-level form for a
// byte-level tokenizer.
func (t *Pipeline) pieces(text string) []string {
	out := []string{}
	norm := t.norm.apply(text)
	run := t.pre.chain(func(p string) {
		if !t.pre.byteLevel {
			out = append(out, p)
			return
		}
		out = append(out, string(byteLevelString(nil, p)))
	})
	// The reference pre-tokenizes the normalized string as a new input: only its first
	// character has offset 0.
	_, w := utf8.DecodeRuneInString(norm)
	run(norm, w)
	return out
}
