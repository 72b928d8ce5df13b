package inference

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"edgechat/reply"

	"edgechat/inference/chat"
	"edgechat/inference/lookup"
	"edgechat/inference/toolcall"
	"edgechat/models"
	"edgechat/tokenizer"
)

// MaxContextLimit is the largest context a route may ask for: 1M tokens, beyond any model
// EdgeChat runs (the cache's bookkeeping is sized by it before the model is asked).
const MaxContextLimit = 1 << 20

// LoadOptions say how to load a model.
type LoadOptions struct {
	// ModelFile picks a Hugging Face variant (e.g. "model_q4.onnx"); "" = best for the CPU.
	ModelFile string
	EP        EP
	// MaxContext caps the context in tokens (0 = reply.DefaultMaxContext or the model's limit).
	MaxContext int
	// GraphCache, when set, is the folder for optimized copies of dynamic decoder graphs
	// (MatMulNBits at accuracy level 4, the LM head on the last row; see onnx/optimize);
	// "" runs the files as published.
	GraphCache string
	// Progress, when set, hears how far the load has gone: the tokenizer read, the first
	// load's preparation of an optimized copy, with KV8 the first calibration of the per-channel
	// 8-bit cache, ONNX Runtime's session created (called on the loading goroutine; see
	// reply.Progress). An OpenFunc reports StepLoading before it creates its sessions.
	Progress func(reply.Progress)
	// KVCache says how the cache is kept: KVAuto (the zero value) in 8 bits with a scale per
	// row where EdgeChat's attention kernels run the model, else in 32 bits; KV32 always in
	// 32 bits (exact); KV8 in 8 bits wherever the optimized copy's attention allows it on the
	// CPU (per channel, calibrated, where the kernels do not run). See KVCache.
	KVCache KVCache
	// PromptInt8 runs prompts (runs of 32 tokens or more) on a second session whose layers'
	// int4 matrices are int8 with one scale a column and whose activations are quantized to
	// int8 with one scale a row (ONNX Runtime's MatMulIntegerToFloat, on the optimized copy's
	// shared KV buffer): on an AVX-512 VNNI CPU the first token of a 428-token prompt takes
	// ~0.45× the CPU time, at the price of ~0.5 GB more private memory for a Qwen3-0.6B and
	// logits further from the float model's than the int4 session's (~2.6× on a random-weight
	// Qwen3-0.6B, ~1.7× on a trained model: one scale a row is coarser than MatMulNBits' one a
	// block of 32; inference/ort/kernbench/PREFILL.md). Off by default.
	PromptInt8 bool
	// PlainAttention keeps ONNX Runtime's GroupQueryAttention where EdgeChat's own attention
	// kernels would run (the CPU copies of models whose attention they take), for measuring
	// them against it or when they misbehave (as the EDGECHAT_ATTN_KERNEL=off variable does).
	PlainAttention bool
	// PlainMatMul keeps ONNX Runtime's MatMulNBits where EdgeChat's own int4 product kernel
	// would run (the CPU copies' 4-bit products), for measuring it against it or when it
	// misbehaves (as the EDGECHAT_MATMUL_KERNEL=off variable does).
	PlainMatMul bool
}

// Model is a loaded chat model: its files, tokenizer, chat template and decoder. The goroutine
// of the route that loaded it owns it.
type Model struct {
	Folder    *models.Folder
	Tokenizer tokenizer.Tokenizer
	Template  *chat.Template
	EOS       map[int]bool
	EP        EP
	// Notes are things a person should know about how the model chats (e.g. "no chat
	// template in the folder: using ChatML"), sent with the first chat reply.
	Notes []string
	dec   Decoder
	// bos and eosText are the special token strings the template may use.
	bos, eosText string
	// nextTurn is the history to prefill once the reply has been delivered.
	nextTurn *nextTurn
	// lookupTiming is what prompt lookup learnt of the decoder's run times in earlier
	// replies.
	lookupTiming lookup.Timing
	toolSupport
	// opts are the options the decoder was opened with, its context resolved.
	opts LoadOptions
}

// ErrVocabMismatch is returned when the tokenizer's ids do not fit the model's logits.
var ErrVocabMismatch = errors.New("tokenizer does not match the model")

// errNoRuntime is returned when a local route has no way to open decoders.
var errNoRuntime = errors.New("no model runtime: the engine was built without a decoder opener (Config.Open; decoder.Opener gives ONNX Runtime)")

// LoadModel opens the model folder at path and its decoder with open.
func LoadModel(path string, o LoadOptions, open OpenFunc) (*Model, error) {
	if open == nil {
		return nil, errNoRuntime
	}
	if o.MaxContext < 0 || o.MaxContext > MaxContextLimit {
		return nil, fmt.Errorf("a context of %d tokens is outside what EdgeChat can hold: give between 1 and %d (0 = the model's own)", o.MaxContext, MaxContextLimit)
	}
	if o.Progress != nil {
		o.Progress(reply.Progress{Step: reply.StepTokenizer})
	}
	m, err := openModel(path, o)
	if err != nil {
		return nil, err
	}
	f := m.Folder
	o.MaxContext = cmpPositive(o.MaxContext, reply.DefaultMaxContext)
	if c := f.ContextLength(); c > 0 && c < o.MaxContext {
		o.MaxContext = c
	}
	dec, err := open(f, o)
	if err != nil {
		return nil, err
	}
	if err := m.attach(dec); err != nil {
		return nil, err
	}
	m.opts = o
	// Reading tokenizer.json and the graph left tens of megabytes of garbage in the Go heap;
	// give it back now rather than whenever the scavenger gets to it.
	debug.FreeOSMemory()
	return m, nil
}

// attach gives the model its decoder, refusing one whose vocabulary does not match the
// tokenizer's (it then closes it).
func (m *Model) attach(dec Decoder) error {
	if err := models.CheckVocab(m.Tokenizer.VocabSize(), dec.Vocab(), m.Folder.VocabSize()); err != nil {
		dec.Close()
		return fmt.Errorf("%w: %v — the tokenizer.json in %s belongs to another model", ErrVocabMismatch, err, m.Folder.Dir)
	}
	m.dec = dec
	if n, ok := dec.(loadNoter); ok {
		m.Notes = append(m.Notes, n.LoadNotes()...)
	}
	return nil
}

// loadNoter is a decoder with things a person should know about how it was opened (e.g. a
// faster form that did not load, the usual one running instead).
type loadNoter interface {
	LoadNotes() []string
}

func cmpPositive(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// openModel reads the folder, tokenizer and chat template, without opening the decoder.
func openModel(path string, o LoadOptions) (*Model, error) {
	f, err := models.Open(path, o.ModelFile)
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.Load(f.Dir)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer of %s: %w", f.Dir, err)
	}
	return newModel(f, tok, tok.ChatTemplate(), tok.SpecialTokens(), o.EP)
}

// newModel builds a model from its folder, tokenizer and Jinja chat template source ("" =
// none; see chooseTemplate).
func newModel(f *models.Folder, tok tokenizer.Tokenizer, template string, st tokenizer.SpecialTokens, ep EP) (*Model, error) {
	m := &Model{Folder: f, Tokenizer: tok, EP: ep, EOS: map[int]bool{}, bos: st.BOS, eosText: st.EOS}
	if err := m.chooseTemplate(template); err != nil {
		return nil, err
	}
	if !m.Template.IsFallback() {
		m.templateText = template
		m.toolFormat = toolcall.Detect(template, func(s string) bool { _, ok := tok.TokenID(s); return ok })
	}
	for _, id := range f.EOS() {
		m.EOS[id] = true
	}
	if id, ok := tok.TokenID(st.EOS); ok {
		m.EOS[id] = true
	}
	if len(m.EOS) == 0 {
		return nil, fmt.Errorf("%s names no end-of-sequence token (generation_config.json or tokenizer_config.json): the reply could never end", f.Dir)
	}
	return m, nil
}

// chooseTemplate sets the chat template: the folder's Jinja template (jinja), else the
// PromptTemplate of Foundry's inference_model.json, else ChatML with a note (a base model, or
// a folder that lost its template).
func (m *Model) chooseTemplate(jinja string) error {
	dir := m.Folder.Dir
	if jinja != "" {
		t, err := chat.New(jinja)
		if errors.Is(err, chat.ErrLimit) {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if err != nil {
			return fmt.Errorf("the chat template in %s cannot be used: %w", dir, err)
		}
		m.Template = t
		return nil
	}
	note := "the model folder has no chat template: using ChatML"
	im, err := models.ReadInferenceModel(dir)
	switch {
	case err != nil:
		note = fmt.Sprintf("the prompt template of %s cannot be used (%v): using ChatML", models.InferenceModelFile, err)
	case im != nil && im.PromptTemplate != nil:
		t, err := chat.FromPromptTemplate(*im.PromptTemplate)
		if err == nil {
			m.Template = t
			return nil
		}
		note = fmt.Sprintf("the prompt template of %s cannot be used (%v): using ChatML", models.InferenceModelFile, err)
	}
	m.Template = chat.ChatML()
	m.Notes = append(m.Notes, note)
	slog.Debug("no usable chat template; ChatML for chat replies", "model", dir, "reason", note)
	return nil
}

// RenderPrompt renders messages with the chat template of the model at path, without
// loading the model's weights.
func RenderPrompt(path, modelFile string, msgs []reply.Message, thinking bool) (string, error) {
	m, err := openModel(path, LoadOptions{ModelFile: modelFile})
	if err != nil {
		return "", err
	}
	return m.RenderPrompt(msgs, thinking)
}

// Decoder is the model's decoder, for harnesses (bench) that drive it directly on the
// goroutine that owns the model.
func (m *Model) Decoder() Decoder { return m.dec }

// Close releases the model's decoder.
func (m *Model) Close() error {
	if m.dec == nil {
		return nil
	}
	return m.dec.Close()
}

// ContextLength is the most tokens prompt and reply may hold together.
func (m *Model) ContextLength() int { return m.dec.Capacity() }
