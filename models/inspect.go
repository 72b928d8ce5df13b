package models

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"edgechat/onnx/proto"
	"edgechat/tokenizer"
)

// Report describes a model folder without running it: what `edgechat inspect` prints and the
// settings pane's "Test" shows.
type Report struct {
	Path   string `json:"path"`
	Layout string `json:"layout"`
	Kind   string `json:"kind"` // KindChat, KindEmbedding or KindReranker
	// Encoding says how an embedding model or reranker reads texts ("mean pooling,
	// L2-normalised, at most 256 tokens, query prompt \"query: \"").
	Encoding      string        `json:"encoding,omitempty"`
	LayoutLetter  string        `json:"layout_letter"`
	Description   string        `json:"description"`
	Graphs        []GraphReport `json:"graphs"`
	Layers        int           `json:"layers"`
	KVHeads       int           `json:"kv_heads"`
	HeadDim       int           `json:"head_dim"`
	Heads         int           `json:"attention_heads,omitempty"`
	Hidden        int           `json:"hidden_size,omitempty"`
	Vocab         int           `json:"vocab"`
	KVType        string        `json:"kv_dtype"`
	KVShape       string        `json:"kv_shape"`
	Static        bool          `json:"static"`
	ContextLength int           `json:"context_length"`
	Quantization  []string      `json:"quantization"`
	QuantName     string        `json:"quant_name,omitempty"`
	NeedsQNN      bool          `json:"needs_qnn"`
	Tokenizer     TokenizerInfo `json:"tokenizer"`
	Variants      []string      `json:"variants,omitempty"`
	Notes         []string      `json:"notes,omitempty"`
}

// GraphReport describes one ONNX file of the model.
type GraphReport struct {
	Role       string         `json:"role"`
	File       string         `json:"file"`
	SizeBytes  int64          `json:"size_bytes"`
	EP         string         `json:"ep,omitempty"`
	Inputs     []IOReport     `json:"inputs"`
	Outputs    []IOReport     `json:"outputs"`
	Ops        map[string]int `json:"ops"`
	EPContexts []string       `json:"ep_context_binaries,omitempty"`
}

// IOReport is one input or output with its shape.
type IOReport struct {
	Name  string `json:"name"`
	DType string `json:"dtype"`
	Shape string `json:"shape"`
}

// TokenizerInfo summarises the tokenizer files.
type TokenizerInfo struct {
	Vocab           int    `json:"vocab"`
	BOS             string `json:"bos,omitempty"`
	EOS             string `json:"eos,omitempty"`
	HasChatTemplate bool   `json:"has_chat_template"`
	// File is the tokenizer's file and TemplateFile the chat template's (base names).
	File         string `json:"file,omitempty"`
	TemplateFile string `json:"template_file,omitempty"`
	// Components names the tokenizer's normalizer, pre-tokenizer, model, post-processor and
	// decoder.
	Components *tokenizer.Components `json:"components,omitempty"`
	Error      string                `json:"error,omitempty"`
}

// quantOps are operators that mark a quantized or precompiled graph.
var quantOps = []string{"MatMulNBits", "QuantizeLinear", "DequantizeLinear", "QLinearMatMul", "MatMulInteger", "DynamicQuantizeLinear", "GatherBlockQuantized", "EPContext"}

// Inspect reads a model folder's files (ONNX headers, configs, tokenizer) and describes it.
// It builds no ONNX Runtime session.
func Inspect(path, modelFile string) (*Report, error) {
	f, err := Open(path, modelFile)
	if err != nil {
		return nil, err
	}
	r := &Report{Path: f.Dir, Layout: string(f.Layout), Kind: f.Kind(), LayoutLetter: f.Layout.Letter(), Description: f.Layout.Describe(), ContextLength: f.ContextLength(), Variants: f.Variants}
	switch r.Kind {
	case KindEmbedding:
		r.Description = "text-embedding model (" + r.Description + "): ranks attached documents' passages; it cannot chat"
		r.Encoding = describeEncoding(f, false)
	case KindReranker:
		r.Description = "cross-encoder reranker (" + r.Description + "): re-orders attached documents' best passages; it cannot chat"
		r.Encoding = describeEncoding(f, true)
	}
	if f.Config != nil {
		r.Heads, r.Hidden = f.Config.NumAttentionHeads, f.Config.HiddenSize
	}
	for _, g := range graphsOf(f) {
		gr, info, err := inspectGraph(g.role, g.path, g.ep)
		if err != nil {
			return nil, err
		}
		r.Graphs = append(r.Graphs, gr)
		r.addGraph(f, g.role, info)
	}
	r.inspectTokenizer(f)
	return r, nil
}

type graphFile struct{ role, path, ep string }

func graphsOf(f *Folder) []graphFile {
	switch f.Layout {
	case LayoutComposite:
		return []graphFile{{"prefill", f.Prefill, ""}, {"gen", f.Gen, ""}}
	case LayoutBundle:
		var out []graphFile
		for _, s := range f.GenAI.Model.Decoder.Pipeline {
			ep, _ := s.SessionOptions.Provider()
			if ep == "" {
				ep = "cpu" // stages that name no provider run on the CPU whatever the route
			}
			out = append(out, graphFile{s.Name, filepath.Join(f.Dir, s.Filename), ep})
		}
		return out
	}
	return []graphFile{{"decoder", f.Model, ""}}
}

func inspectGraph(role, path, ep string) (GraphReport, *proto.ModelInfo, error) {
	info, err := proto.ReadInfo(path)
	if err != nil {
		return GraphReport{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	g := GraphReport{Role: role, File: filepath.Base(path), EP: ep, Ops: info.Ops, SizeBytes: graphFileBytes(path, info)}
	conv := func(list []proto.IO) []IOReport {
		out := make([]IOReport, len(list))
		for i, v := range list {
			out[i] = IOReport{Name: v.Name, DType: v.ElemType, Shape: ShapeString(v.Dims)}
		}
		return out
	}
	g.Inputs, g.Outputs = conv(info.Inputs), conv(info.Outputs)
	if len(info.EPContexts) > 0 && g.EP == "" {
		g.EP = "qnn" // a compiled graph runs only on the EP it was compiled for
	}
	for _, c := range info.EPContexts {
		if c.EmbedMode == 0 {
			g.EPContexts = append(g.EPContexts, c.CacheContext)
		} else {
			g.EPContexts = append(g.EPContexts, fmt.Sprintf("(embedded, %d bytes)", c.EmbeddedBytes))
		}
	}
	return g, info, nil
}

// addGraph folds one graph's facts into the report.
func (r *Report) addGraph(f *Folder, role string, info *proto.ModelInfo) {
	if r.QuantName == "" {
		r.QuantName = info.Quantization()
	}
	for _, op := range quantOps {
		for key := range info.Ops {
			if (key == op || strings.HasSuffix(key, ":"+op)) && !slices.Contains(r.Quantization, op) {
				r.Quantization = append(r.Quantization, op)
			}
		}
	}
	if len(info.EPContexts) > 0 {
		r.NeedsQNN = true
		for _, c := range info.EPContexts {
			if c.EmbedMode == 0 {
				if _, err := os.Stat(filepath.Join(f.Dir, c.CacheContext)); err != nil {
					r.Notes = append(r.Notes, fmt.Sprintf("%s: its context binary %s is missing — copy it from the build folder", role, c.CacheContext))
				}
			}
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%s is a compiled EPContext graph: it needs a QNN-enabled ONNX Runtime (Settings → ONNX Runtime library)", role))
	}
	names := f.GenAINames()
	if io, err := DescribeDecoder(role, info.Inputs, info.Outputs, names); err == nil && r.Layers == 0 {
		r.Layers, r.KVHeads, r.HeadDim, r.KVType, r.Vocab = io.Layers(), io.KVHeads, io.HeadDim, io.KVType, io.Vocab
		r.Static = io.SeqLen > 0 && io.MaxCache > 0
		p, _ := info.Input(io.Past[0].Key)
		r.KVShape = ShapeString(p.Dims)
		if r.Static && f.Layout == LayoutComposite {
			// The composite's cache is a window of M rows that slides; M is what one
			// prompt may hold.
			r.ContextLength = io.MaxCache
		}
	}
	if r.Vocab == 0 {
		for _, o := range info.Outputs {
			if o.Name == "logits" && len(o.Dims) > 0 {
				r.Vocab = int(o.Dims[len(o.Dims)-1].Value)
			}
		}
	}
	if f.Layout == LayoutBundle && r.KVType == "" {
		if g, err := DescribeGQA(role, info, BundleNamesOf(f.GenAI.Model.Decoder)); err == nil {
			p, _ := info.Input(g.Past[0].Key)
			r.Static, r.KVShape = true, ShapeString(p.Dims)
			r.Layers, r.KVHeads, r.HeadDim, r.KVType = len(g.Past), g.Heads, g.HeadDim, g.KVType
		}
	}
	if f.Layout == LayoutBundle && r.Layers == 0 {
		r.Static = true
		if f.GenAI != nil {
			d := f.GenAI.Model.Decoder
			r.Layers, r.KVHeads, r.HeadDim = d.NumHiddenLayers, d.NumKeyValueHeads, d.HeadSize
		}
	}
}

func (r *Report) inspectTokenizer(f *Folder) {
	tok, err := tokenizer.Load(f.Dir)
	if err != nil {
		r.Tokenizer.Error = err.Error()
		return
	}
	st := tok.SpecialTokens()
	comps := tok.Components()
	r.Tokenizer = TokenizerInfo{Vocab: tok.VocabSize(), BOS: st.BOS, EOS: st.EOS, HasChatTemplate: tok.ChatTemplate() != "",
		File: filepath.Base(f.Tokenizer), Components: &comps}
	if f.ChatTemplate != "" {
		r.Tokenizer.TemplateFile = filepath.Base(f.ChatTemplate)
	}
	if r.Vocab > 0 {
		if err := CheckVocab(tok.VocabSize(), r.Vocab, f.VocabSize()); err != nil {
			r.Notes = append(r.Notes, err.Error()+": tokenizer.json belongs to another model, and EdgeChat will refuse to load it")
		}
	}
	if !r.Tokenizer.HasChatTemplate {
		if im, err := ReadInferenceModel(f.Dir); err == nil && im != nil && im.PromptTemplate != nil {
			r.Notes = append(r.Notes, "no chat template (chat_template.jinja or tokenizer_config.json): EdgeChat will use the PromptTemplate of "+InferenceModelFile)
		} else {
			r.Notes = append(r.Notes, "no chat template (chat_template.jinja or tokenizer_config.json): a base model — EdgeChat chats with it in ChatML, and completes text with generate --raw, /v1/completions and the window's Complete text mode")
		}
	}
}

// FileBytes is the size of the model's graph files with their external data.
func (f *Folder) FileBytes() int64 {
	var n int64
	for _, g := range graphsOf(f) {
		info, err := proto.ReadInfo(g.path)
		if err != nil {
			info = &proto.ModelInfo{} // count the graph file alone
		}
		n += graphFileBytes(g.path, info)
	}
	return n
}

// graphFileBytes is the size of an ONNX file and of the external data files it names.
func graphFileBytes(path string, info *proto.ModelInfo) int64 {
	var n int64
	for _, p := range append([]string{path}, ExternalPaths(path, info)...) {
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}
