package inference

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime/debug"

	"edgechat/reply"

	"edgechat/inference/chat"
	"edgechat/inference/tokenizer"
	"edgechat/internal/optimize"
	"edgechat/models"
)

// DefaultMaxContext caps the KV cache when a route sets no limit: the model may allow far more
// (Qwen3: 40,960), but every token of context costs memory.
const DefaultMaxContext = 8192

// LoadOptions say how to load a model.
type LoadOptions struct {
	// ModelFile picks a Hugging Face variant (e.g. "model_q4.onnx"); "" = best for the CPU.
	ModelFile string
	EP        EP
	// MaxContext caps the context in tokens (0 = DefaultMaxContext or the model's limit).
	MaxContext int
	// GraphCache, when set, is the folder for optimized copies of dynamic decoder graphs
	// (optimizedGraph); "" runs the files as published.
	GraphCache string
}

// Model is a loaded chat model: its files, tokenizer, chat template and decoder.
type Model struct {
	Folder    *models.Folder
	Tokenizer tokenizer.Tokenizer
	Template  *chat.Template
	EOS       map[int]bool
	EP        EP
	// Notes are things a person should know about how the model was loaded
	// (e.g. "no chat template in the folder: using ChatML").
	Notes []string
	dec   decoder
	// bos and eosText are the special token strings the template may use.
	bos, eosText string
	// nextTurn is the history to prefill once the reply has been delivered.
	nextTurn *nextTurn
	// pages releases the memory of the weight files ONNX Runtime mapped.
	pages weightPages
}

// ErrVocabMismatch is returned when the tokenizer's ids do not fit the model's logits.
var ErrVocabMismatch = errors.New("tokenizer does not match the model")

// LoadModel opens the model folder at path and creates its ONNX Runtime session(s).
// ONNX Runtime must be initialised (ortenv.Init).
func LoadModel(path string, o LoadOptions) (*Model, error) {
	m, err := openModel(path, o)
	if err != nil {
		return nil, err
	}
	f, tok := m.Folder, m.Tokenizer
	maxCtx := o.MaxContext
	if maxCtx <= 0 {
		maxCtx = DefaultMaxContext
	}
	if c := f.ContextLength(); c > 0 && c < maxCtx {
		maxCtx = c
	}
	weights := f.Dir // where the mapped weight files are
	switch f.Layout {
	case models.LayoutHF, models.LayoutGenAI:
		g := *f // the optimized copy runs in the folder's place; m.Folder still names the user's file
		if g.Model = optimizedGraph(f.Model, o.GraphCache); g.Model != f.Model {
			weights = filepath.Dir(g.Model) // the copy maps the weights through its links
		}
		m.dec, err = loadDynamic(&g, o.EP, maxCtx)
	case models.LayoutComposite:
		if err = checkCompositeContexts(f, o.EP); err == nil {
			m.dec, err = loadStatic(f, o.EP)
		}
	case models.LayoutBundle:
		m.dec, err = loadBundle(f, o.EP, maxCtx)
	default:
		err = fmt.Errorf("%s is a %s (layout %s), which this build cannot run yet", f.Dir, f.Layout.Describe(), f.Layout.Letter())
	}
	if err != nil {
		return nil, err
	}
	if tok.VocabSize() > m.dec.Vocab() {
		m.dec.Close()
		return nil, fmt.Errorf("%w: the tokenizer has %d tokens but the model's logits are %d wide — the tokenizer.json in %s belongs to another model", ErrVocabMismatch, tok.VocabSize(), m.dec.Vocab(), f.Dir)
	}
	m.pages = weightPages{dir: weights}
	m.pages.release()
	// Reading tokenizer.json and the graph left tens of megabytes of garbage in the Go heap;
	// give it back now rather than whenever the scavenger gets to it.
	debug.FreeOSMemory()
	return m, nil
}

// openModel reads the folder, tokenizer and chat template, without creating sessions.
func openModel(path string, o LoadOptions) (*Model, error) {
	f, err := models.Open(path, o.ModelFile)
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.Load(f.Dir)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer of %s: %w", f.Dir, err)
	}
	m := &Model{Folder: f, Tokenizer: tok, EP: o.EP, EOS: map[int]bool{}}
	if err := m.setTemplate(tok); err != nil {
		return nil, err
	}
	for _, id := range f.EOS() {
		m.EOS[id] = true
	}
	if id, ok := tok.TokenID(tok.SpecialTokens().EOS); ok {
		m.EOS[id] = true
	}
	if len(m.EOS) == 0 {
		return nil, fmt.Errorf("%s names no end-of-sequence token (generation_config.json or tokenizer_config.json): the reply could never end", f.Dir)
	}
	return m, nil
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

func (m *Model) setTemplate(tok *tokenizer.BPE) error {
	st := tok.SpecialTokens()
	m.bos, m.eosText = st.BOS, st.EOS
	src := tok.ChatTemplate()
	if src == "" {
		m.Template = chat.ChatML()
		m.Notes = append(m.Notes, "the model folder has no chat template: using ChatML")
		slog.Warn("no chat template; falling back to ChatML", "model", m.Folder.Dir)
		return nil
	}
	t, err := chat.New(src)
	if err != nil {
		return fmt.Errorf("the chat template in %s cannot be used: %w", m.Folder.Dir, err)
	}
	m.Template = t
	return nil
}

// loadDynamic reads a dynamic decoder's interface from its graph and opens a session.
func loadDynamic(f *models.Folder, ep EP, maxCtx int) (decoder, error) {
	info, err := readGraph(f.Model)
	if err != nil {
		return nil, err
	}
	names := genaiNames(f)
	io, err := describeDecoder(f.Model, info.Inputs, info.Outputs, names)
	if err != nil {
		return nil, err
	}
	io.LastRow = info.Metadata[optimize.MetaLogitsRows] == "last"
	if io.Vocab == 0 && f.Config != nil {
		io.Vocab = f.Config.VocabSize
	}
	if io.Vocab == 0 && f.GenAI != nil {
		io.Vocab = f.GenAI.Model.VocabSize
	}
	opts, err := newSessionOptions(ep)
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	return newDynamicDecoder(f.Model, io, opts, maxCtx)
}

// loadStatic opens a static composite's prefill and gen decoders.
func loadStatic(f *models.Folder, ep EP) (decoder, error) {
	var ios [2]*decoderIO
	for i, p := range []string{f.Prefill, f.Gen} {
		info, err := readGraph(p)
		if err != nil {
			return nil, err
		}
		if ios[i], err = describeDecoder(p, info.Inputs, info.Outputs, nil); err != nil {
			return nil, err
		}
		if ios[i].SeqLen == 0 || ios[i].MaxCache == 0 {
			return nil, fmt.Errorf("%s has dynamic shapes; a static composite needs fixed input_ids and cache sizes", p)
		}
	}
	opts, err := newSessionOptions(ep)
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	return newStaticDecoder(f.Prefill, ios[0], f.Gen, ios[1], opts)
}

// genaiNames maps genai_config.json's input and output roles ("input_ids", "past_key_names"…)
// to the graph's names; empty for folders without that file.
func genaiNames(f *models.Folder) map[string]string {
	names := map[string]string{}
	if f.GenAI != nil {
		for k, v := range f.GenAI.Model.Decoder.Inputs {
			names[k] = v
		}
		for k, v := range f.GenAI.Model.Decoder.Outputs {
			names[k] = v
		}
	}
	return names
}

// Close releases the model's sessions.
func (m *Model) Close() error {
	if m.dec == nil {
		return nil
	}
	return m.dec.Close()
}

// ContextLength is the most tokens prompt and reply may hold together.
func (m *Model) ContextLength() int { return m.dec.Capacity() }
