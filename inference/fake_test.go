package inference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"edgechat/internal/testkit/testenv"
	"edgechat/models"
)

// The engine's fast tests run on a fake decoder whose next token is a function of the ids in
// its cache, over a real model folder with a small tokenizer: Qwen3's tokenizer.json
// pipeline and chat template with the 256 byte tokens and Qwen3's added tokens only, so
// loading it takes milliseconds and token ids are bytes.

// fakeVocab is the fake tokenizer's size: 256 bytes and Qwen3's 26 added tokens.
const fakeVocab = 256 + 26

// fakeFolder writes the fake model folder once per test binary and returns it.
func fakeFolder(t testing.TB) string {
	t.Helper()
	src := testenv.TokenizerDir(t, "qwen3")
	modelMu.Lock()
	defer modelMu.Unlock()
	if fakeDir != "" {
		return fakeDir
	}
	dir := filepath.Join(modelRoot, "fake")
	if err := writeFakeFolder(src, dir); err != nil {
		t.Fatal(err)
	}
	fakeDir = dir
	return dir
}

var (
	modelMu   sync.Mutex
	modelRoot string
	fakeDir   string
)

func TestMain(m *testing.M) { os.Exit(testenv.RunInTempDir(m, "edgechat-fake-", &modelRoot)) }

// writeFakeFolder writes into dir a Hugging Face folder whose graph only the fake runs:
// tokenizer.json with Qwen3's pipeline (NFC, its Split regex, ByteLevel), the 256 byte tokens
// and Qwen3's added tokens as listed in its tokenizer_config.json; that tokenizer_config.json
// (chat template, special tokens) without its id table; config.json; an empty onnx/model.onnx.
func writeFakeFolder(qwen3, dir string) error {
	var cfg map[string]any
	if err := readJSON(filepath.Join(qwen3, "tokenizer_config.json"), &cfg); err != nil {
		return err
	}
	table, _ := cfg["added_tokens_decoder"].(map[string]any)
	ids := make([]int, 0, len(table))
	for k := range table {
		id, err := strconv.Atoi(k)
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var added []any
	for i, id := range ids {
		a := table[strconv.Itoa(id)].(map[string]any)
		added = append(added, map[string]any{"id": 256 + i, "content": a["content"], "special": a["special"],
			"normalized": false, "single_word": false, "lstrip": false, "rstrip": false})
	}
	if len(added) != fakeVocab-256 {
		return fmt.Errorf("Qwen3's tokenizer has %d added tokens, the fake expects %d", len(added), fakeVocab-256)
	}
	delete(cfg, "added_tokens_decoder")
	vocab := map[string]int{}
	for b, r := range byteRunes() {
		vocab[string(r)] = b
	}
	byteLevel := map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}
	tok := map[string]any{
		"version": "1.0", "added_tokens": added, "normalizer": map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": qwen3Split}, "behavior": "Isolated", "invert": false},
			byteLevel,
		}},
		"post_processor": byteLevel, "decoder": byteLevel,
		"model": map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "",
			"end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
			"vocab": vocab, "merges": []any{}},
	}
	if err := os.MkdirAll(filepath.Join(dir, "onnx"), 0o755); err != nil {
		return err
	}
	hf := map[string]any{"model_type": "qwen3", "vocab_size": fakeVocab, "max_position_embeddings": 40960}
	for name, v := range map[string]any{"tokenizer.json": tok, "tokenizer_config.json": cfg, "config.json": hf} {
		if err := os.WriteFile(filepath.Join(dir, name), mustJSON(v), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "onnx", "model.onnx"), nil, 0o644)
}

// qwen3Split is the Split pre-tokenizer regex of Qwen3's tokenizer.json.
const qwen3Split = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// byteRunes is byte-level BPE's byte-to-character table (GPT-2's bytes_to_unicode).
func byteRunes() [256]rune {
	var out [256]rune
	n := 0
	for b := range 256 {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE && b <= 0xFF {
			out[b] = rune(b)
		} else {
			out[b] = rune(256 + n)
			n++
		}
	}
	return out
}

// Token ids of the fake tokenizer's added tokens used by the tests.
const (
	fakeEndOfText = 256 + iota
	fakeIMStart
	fakeIMEnd
)

// fakeDecoder is a Decoder whose next token is next(ids in the cache, tokens decoded one by
// one since the last prefill). One goroutine at a time uses it, as the engine does.
type fakeDecoder struct {
	next     func(ids []int, decoded int) int
	capacity int
	ids      []int
	logits   []float32
	// delay is how long each Forward takes (for cancellation); ctx cuts it short.
	delay time.Duration
	// fail, when set, makes Forward fail on the ids it is given.
	fail func(ids []int) error
	// fed counts the tokens Forward ran; closed is set by Close.
	fed    int
	closed bool
	slides bool
	// decoded counts one-token runs since the last prefill (a run of several tokens, or one
	// after the cache was cut).
	decoded int
	cut     bool
	// rows, when > 1, makes the runtime open it as a RowsForwarder taking that many rows.
	rows int
	// runs counts Forward and ForwardRows calls.
	runs int
}

// rowsDecoder is a fake that checks several rows in one run, as dynamic graphs do.
type rowsDecoder struct {
	*fakeDecoder
	buf []float32
}

func (d *rowsDecoder) MaxRows() int { return d.rows }

// ForwardRows feeds ids one at a time and keeps each row's logits; on error the cache is
// as it was.
func (d *rowsDecoder) ForwardRows(ctx context.Context, ids []int) ([]float32, error) {
	if len(ids) > d.rows {
		return nil, fmt.Errorf("%d rows asked, %d allowed", len(ids), d.rows)
	}
	before := len(d.ids)
	d.buf = d.buf[:0]
	for _, id := range ids {
		row, err := d.fakeDecoder.Forward(ctx, []int{id})
		if err != nil {
			d.Truncate(before)
			return nil, err
		}
		d.buf = append(d.buf, row...)
	}
	d.runs -= len(ids) - 1 // one run
	return d.buf, nil
}

// letters is the default fake model: a lowercase letter chosen by the ids so far, so every
// prompt gets its own reply.
func letters(ids []int, _ int) int {
	h := len(ids)
	for _, id := range ids {
		h = h*31 + id
	}
	return 'a' + (h%26+26)%26
}

// script answers every prompt with text, byte by byte, then the end-of-turn token.
func script(text string) func([]int, int) int {
	return func(_ []int, decoded int) int {
		if decoded < len(text) {
			return int(text[decoded])
		}
		return fakeIMEnd
	}
}

func (d *fakeDecoder) Forward(ctx context.Context, ids []int) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, errors.New("forward: no tokens")
	}
	if d.fail != nil {
		if err := d.fail(ids); err != nil {
			return nil, err
		}
	}
	if !d.slides && len(d.ids)+len(ids) > d.capacity {
		return nil, fmt.Errorf("the conversation needs %d tokens but the context holds %d", len(d.ids)+len(ids), d.capacity)
	}
	if d.delay > 0 {
		select {
		case <-time.After(d.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	d.ids = append(d.ids, ids...)
	d.fed += len(ids)
	d.runs++
	if len(ids) > 1 || d.cut {
		d.decoded, d.cut = 0, false
	} else {
		d.decoded++
	}
	if d.logits == nil {
		d.logits = make([]float32, fakeVocab)
	}
	clear(d.logits)
	d.logits[d.next(d.ids, d.decoded)] = 10
	return d.logits, nil
}

func (d *fakeDecoder) Cached() []int            { return d.ids }
func (d *fakeDecoder) Truncate(n int)           { d.ids = d.ids[:min(max(n, 0), len(d.ids))] }
func (d *fakeDecoder) Capacity() int            { return d.capacity }
func (d *fakeDecoder) Vocab() int               { return fakeVocab }
func (d *fakeDecoder) KVBytes() int64           { return int64(len(d.ids)) * 100 }
func (d *fakeDecoder) Close() error             { d.closed = true; return nil }
func (d *fakeDecoder) Slides() bool             { return d.slides }
func (d *fakeDecoder) Runtime() string          { return "fake runtime" }
func (d *fakeDecoder) Snapshot() (State, int64) { return slices.Clone(d.ids), d.KVBytes() }
func (d *fakeDecoder) Restore(s State)          { d.ids = slices.Clone(s.([]int)) }

// fakeRuntime opens fake decoders made by make and keeps them and the options they were
// opened with, for the test to inspect.
type fakeRuntime struct {
	mu    sync.Mutex
	make  func() (*fakeDecoder, error)
	opens int
	decs  []*fakeDecoder
	opts  []LoadOptions
	// refuse, when set, fails the opens it returns an error for, as a provider would.
	refuse func(LoadOptions) error
}

func (f *fakeRuntime) open(_ *models.Folder, o LoadOptions) (Decoder, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opens++
	f.opts = append(f.opts, o)
	if f.refuse != nil {
		if err := f.refuse(o); err != nil {
			return nil, err
		}
	}
	d, err := f.make()
	if err != nil {
		return nil, err
	}
	if d.capacity == 0 {
		d.capacity = o.MaxContext
	}
	f.decs = append(f.decs, d)
	if d.rows > 1 {
		return &rowsDecoder{fakeDecoder: d}, nil
	}
	return d, nil
}

// last is the decoder opened last (nil before the first).
func (f *fakeRuntime) last() *fakeDecoder {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.decs) == 0 {
		return nil
	}
	return f.decs[len(f.decs)-1]
}

// decoderOf returns a runtime that opens copies of d.
func decoderOf(d fakeDecoder) *fakeRuntime {
	return &fakeRuntime{make: func() (*fakeDecoder, error) {
		c := d
		if c.next == nil {
			c.next = letters
		}
		return &c, nil
	}}
}

// fakeRoute is a route named name on the fake folder, capped at maxContext tokens.
func fakeRoute(t testing.TB, name string, maxContext int) RouteConfig {
	return RouteConfig{Name: name, Model: fakeFolder(t), LoadOptions: LoadOptions{EP: EP{Name: "cpu"}, MaxContext: maxContext}}
}

// fakeEngine starts an engine on routes, opening decoders with rt.
func fakeEngine(t testing.TB, rt *fakeRuntime, cfg Config, routes ...RouteConfig) *Engine {
	t.Helper()
	cfg.Open, cfg.Routes = rt.open, routes
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
