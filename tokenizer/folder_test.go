package tokenizer

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
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

// TestT5SpieceModel loads a T5 folder as saved without tokenizer.json — the SentencePiece model
// named spiece.model (Marian's Unigram model here), T5Tokenizer named by tokenizer_config.json or
// t5 by config.json's model_type — and checks it against the reference's goldens of Marian's
// tokenizer.json with T5's post-processor (marian_t5): </s> after the text and after each of a
// pair, every type id 0.
func TestT5SpieceModel(t *testing.T) {
	for name, files := range map[string]map[string][]byte{
		"tokenizer_class": {"tokenizer_config.json": []byte(`{"tokenizer_class": "T5Tokenizer", "eos_token": "</s>", "extra_ids": 0}`)},
		"model_type":      {"tokenizer_config.json": []byte(`{"extra_ids": 0}`), "config.json": []byte(`{"model_type": "t5"}`)},
	} {
		t.Run(name, func(t *testing.T) {
			files["spiece.model"] = readRealFile(t, "marian.spm.gz")
			tk := loadFiles(t, files)
			var corpus []string
			readGz(t, "corpus.json.gz", &corpus)
			var g goldenFile
			readGz(t, "golden_marian_t5.json.gz", &g)
			failed := 0
			check := func(what string, want, got any) {
				if diff := cmp.Diff(want, got); diff != "" && failed < 10 {
					failed++
					t.Errorf("%s (-want +got):\n%s", what, diff)
				}
			}
			for i, c := range g.Cases {
				check(fmt.Sprintf("Encode(%q)", corpus[i]), nonNil(c.IDs), nonNil(tk.Encode(corpus[i])))
				if c.Special == nil && c.Post != nil { // no added token in the text
					check(fmt.Sprintf("AddSpecialTokens(%q)", corpus[i]), nonNil(c.Post), nonNil(tk.AddSpecialTokens(c.IDs)))
				}
			}
			for _, p := range g.Pairs {
				got := tk.EncodePair(corpus[p.A], corpus[p.A+1])
				check(fmt.Sprintf("EncodePair(%q, %q)", corpus[p.A], corpus[p.A+1]), Encoding{IDs: nonNil(p.IDs), TypeIDs: nonNil(p.TypeIDs)},
					Encoding{IDs: nonNil(got.IDs), TypeIDs: nonNil(got.TypeIDs)})
			}
		})
	}
}

// TestSentencePieceUnkFromTrainerSpec loads Marian's SentencePiece model with the unk_id of its
// trainer_spec removed: transformers' converter takes the field's default, 0, as the Unigram
// model's unk_id (not the <unk> piece, 1), and so must the tokenizer built here (golden
// marian_unk0: Marian's file with unk_id 0).
func TestSentencePieceUnkFromTrainerSpec(t *testing.T) {
	model := readRealFile(t, "marian.spm.gz")
	var out []byte
	r := protoReader{b: model}
	for {
		before := r.b
		field, _, _, data, ok := r.next()
		if !ok {
			break
		}
		if field != 2 {
			out = append(out, before[:len(before)-len(r.b)]...)
			continue
		}
		var spec []byte
		inner := protoReader{b: data}
		for {
			before := inner.b
			f, _, _, _, ok := inner.next()
			if !ok {
				break
			}
			if f != 40 { // unk_id
				spec = append(spec, before[:len(before)-len(inner.b)]...)
			}
		}
		if len(spec) == len(data) {
			t.Fatal("marian.spm has no trainer_spec unk_id to remove")
		}
		out = protoBytes(out, 2, spec)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	tk := loadFiles(t, map[string][]byte{"tokenizer.model": out})
	compareEncode(t, tk, "marian_unk0")
}

// TestVocabMergesMatchesTokenizerJSON loads GPT-2's folder as saved without tokenizer.json
// (vocab.json, merges.txt, tokenizer_config.json with its added token) and checks it against
// the reference's goldens of GPT-2's tokenizer.json: encodes, special tokens, decodes.
func TestVocabMergesMatchesTokenizerJSON(t *testing.T) {
	tk := loadFolder(t, map[string][]byte{"vocab.json": readRealFile(t, "gpt2-vocab.json.gz"),
		"merges.txt": readRealFile(t, "gpt2-merges.txt.gz")}, filepath.Join("testdata", "real", "gpt2-tokenizer_config.json"))
	checkGolden(t, tk, "real_gpt2")
}

// robertaConfig is tokenizer_config.json as RobertaTokenizer saved it before added_tokens_decoder
// existed: the special tokens by name only.
const robertaConfig = `{"errors": "replace", "bos_token": "<s>", "eos_token": "</s>", "sep_token": "</s>", "cls_token": "<s>",
 "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>", "add_prefix_space": false, "trim_offsets": true,
 "model_max_length": 512, "tokenizer_class": "RobertaTokenizer"}`

// robertaFolder writes RoBERTa's vocabulary and merges (from its tokenizer.json) as vocab.json
// and merges.txt.
func robertaFolder(t *testing.T) map[string][]byte {
	t.Helper()
	var f struct {
		Model struct {
			Vocab  map[string]int `json:"vocab"`
			Merges []string       `json:"merges"`
		} `json:"model"`
	}
	if err := json.Unmarshal(readRealFile(t, "roberta.json.gz"), &f); err != nil {
		t.Fatal(err)
	}
	vocab, err := json.Marshal(f.Model.Vocab)
	if err != nil {
		t.Fatal(err)
	}
	merges := "#version: 0.2\n" + strings.Join(f.Model.Merges, "\n") + "\n"
	return map[string][]byte{"vocab.json": vocab, "merges.txt": []byte(merges)}
}

// TestRobertaVocabMergesMatchesTokenizerJSON loads RoBERTa's folder as saved without
// tokenizer.json, named RobertaTokenizer by tokenizer_config.json or roberta by config.json's
// model_type, and checks it against the reference's goldens of RoBERTa's tokenizer.json: <s> …
// </s> around the text and pairs (RobertaProcessing), the named special tokens (<mask> taking the
// space before it), decodes.
func TestRobertaVocabMergesMatchesTokenizerJSON(t *testing.T) {
	t.Run("tokenizer_class", func(t *testing.T) {
		files := robertaFolder(t)
		files["tokenizer_config.json"] = []byte(robertaConfig)
		checkGolden(t, loadFiles(t, files), "real_roberta")
	})
	t.Run("model_type", func(t *testing.T) {
		files := robertaFolder(t)
		files["tokenizer_config.json"] = []byte(strings.Replace(robertaConfig, `"RobertaTokenizer"`, `""`, 1))
		files["config.json"] = []byte(`{"model_type": "roberta", "vocab_size": 50265}`)
		checkGolden(t, loadFiles(t, files), "real_roberta")
	})
}

// loadFolder writes files, and a copy of the tokenizer_config.json at config, into a temporary
// folder and loads the tokenizer from it.
func loadFolder(t *testing.T, files map[string][]byte, config string) *Pipeline {
	t.Helper()
	cfg, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	files["tokenizer_config.json"] = cfg
	return loadFiles(t, files)
}

// loadFiles writes files into a temporary folder and loads the tokenizer from it.
func loadFiles(t *testing.T, files map[string][]byte) *Pipeline {
	t.Helper()
	dir := t.TempDir()
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

// TestAddedTokensJSONSpecialOnlyWhenNamed loads GPT-2's vocab.json and merges.txt with an
// added_tokens.json and no added_tokens_decoder: as transformers reads that file, a token is
// special only when tokenizer_config.json or special_tokens_map.json names it (here
// <|endoftext|> as eos_token, <extra> as an additional special token), so Decode skipping
// special tokens keeps <s1> and drops the others.
func TestAddedTokensJSONSpecialOnlyWhenNamed(t *testing.T) {
	tk := loadFiles(t, map[string][]byte{
		"vocab.json": readRealFile(t, "gpt2-vocab.json.gz"), "merges.txt": readRealFile(t, "gpt2-merges.txt.gz"),
		"tokenizer_config.json":   []byte(`{"tokenizer_class": "GPT2Tokenizer", "eos_token": "<|endoftext|>"}`),
		"special_tokens_map.json": []byte(`{"additional_special_tokens": ["<extra>"]}`),
		"added_tokens.json":       []byte(`{"<|endoftext|>": 50256, "<s1>": 50257, "<extra>": 50258}`),
	})
	ids := tk.EncodeSpecial("a<s1>b<extra><|endoftext|>")
	if !slices.Contains(ids, 50257) || !slices.Contains(ids, 50258) || !slices.Contains(ids, 50256) {
		t.Fatalf("EncodeSpecial = %v, want the added tokens 50256, 50257 and 50258 among them", ids)
	}
	if got := tk.Decode(ids, true); got != "a<s1>b" {
		t.Errorf("Decode(%v, skip special) = %q, want %q", ids, got, "a<s1>b")
	}
}
