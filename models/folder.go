package models

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"edgechat/internal/safepath"
	"edgechat/tokenizer"
)

// Layout names the shape of a model folder (see docs/RUNTIME.md).
type Layout string

const (
	// LayoutHF is a Hugging Face ONNX export: config.json, onnx/model*.onnx (layout A).
	LayoutHF Layout = "hf"
	// LayoutGenAI is an onnxruntime-genai build: genai_config.json + model.onnx (layout B).
	LayoutGenAI Layout = "genai"
	// LayoutComposite is a static-shape NPU build with prefill and gen decoders (layout C).
	LayoutComposite Layout = "composite"
	// LayoutBundle is a decoder-pipeline bundle: embeddings, ctx, iter, lm_head (layout D).
	LayoutBundle Layout = "bundle"
)

// Letter returns the layout's letter as docs/RUNTIME.md names them (A–D).
func (l Layout) Letter() string {
	return map[Layout]string{LayoutHF: "A", LayoutGenAI: "B", LayoutComposite: "C", LayoutBundle: "D"}[l]
}

// Describe returns a short human description of the layout.
func (l Layout) Describe() string {
	return map[Layout]string{
		LayoutHF:        "Hugging Face ONNX export",
		LayoutGenAI:     "onnxruntime-genai model",
		LayoutComposite: "static-shape NPU composite (prefill + gen)",
		LayoutBundle:    "decoder-pipeline bundle (embeddings, ctx, iter, lm_head)",
	}[l]
}

// ErrNotModelFolder is wrapped by Open's errors when the path holds no model it can use.
var ErrNotModelFolder = errors.New("not a model folder")

// Folder is a model folder on disk and what its files say.
type Folder struct {
	Dir    string
	Layout Layout
	// Model is the ONNX file to run for layouts A and B.
	Model string
	// Variants lists the ONNX files a layout-A folder offers (base names), best first.
	Variants []string
	// Prefill and Gen are the static decoders of layout C.
	Prefill, Gen string
	// Tokenizer is the tokenizer's file: tokenizer.json, else vocab.json (with merges.txt
	// beside it) or tokenizer.model / spiece.model, which the tokenizer is built from as transformers does.
	Tokenizer string
	// TokenizerConfig is tokenizer_config.json, or "" if the folder has none.
	TokenizerConfig string
	// ChatTemplate is the file the chat template comes from: chat_template.jinja, else
	// chat_template.json, else tokenizer_config.json when it holds one; "" if none.
	ChatTemplate string

	Config     *HFConfig          // config.json, if any
	Generation GenerationDefaults // generation_config.json or genai_config.json's search
	GenAI      *GenAIConfig       // genai_config.json (layouts B and D)
}

// variantOrder ranks layout-A files for the CPU: quantized first (fastest with little loss),
// then full precision; fp16 variants last (the CPU runs them slowly).
var variantOrder = []string{
	"model_q4.onnx", "model_quantized.onnx", "model_int8.onnx", "model_uint8.onnx",
	"model.onnx", "model_bnb4.onnx", "model_fp16.onnx", "model_q4f16.onnx",
	// Optimum's older exports: the merged decoder (with and without past in one graph) is
	// the one that runs alone; decoder_model.onnx has no KV cache.
	"decoder_model_merged_quantized.onnx", "decoder_model_merged.onnx", "decoder_with_past_model.onnx",
}

// VariantRank ranks a layout-A ONNX file name for the CPU: lower is better; names it does not
// know rank last.
func VariantRank(name string) int {
	for i, v := range variantOrder {
		if v == name {
			return i
		}
	}
	return len(variantOrder)
}

// Open describes the model at path: a folder, or an .onnx file inside one (then that file is
// the variant). variant picks a layout-A file by base name ("" = best for the CPU).
func Open(path, variant string) (*Folder, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("model %s does not exist: choose the folder that holds your model", path)
	}
	dir := path
	if !st.IsDir() {
		if !strings.EqualFold(filepath.Ext(path), ".onnx") {
			return nil, fmt.Errorf("%s is not an .onnx file or a model folder: %w", path, ErrNotModelFolder)
		}
		dir = filepath.Dir(path)
		if filepath.Base(dir) == "onnx" {
			dir = filepath.Dir(dir)
		}
		variant = filepath.Base(path)
	}
	f := &Folder{Dir: dir}
	if err := f.detect(variant); err != nil {
		return nil, err
	}
	if err := f.findTokenizer(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *Folder) join(name string) string { return filepath.Join(f.Dir, name) }

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// detect works out the layout from the files present.
func (f *Folder) detect(variant string) error {
	var genai GenAIConfig
	hasGenAI, err := readOptionalJSON(f.join("genai_config.json"), &genai)
	if err != nil {
		return err
	}
	if hasGenAI {
		f.GenAI = &genai
		f.Generation = genai.Search
		if genai.IsPipeline() {
			if err := genai.parsePipeline(); err != nil {
				return fmt.Errorf("%s: %w", f.join("genai_config.json"), err)
			}
			for _, s := range genai.Model.Decoder.Pipeline {
				if !exists(f.join(s.Filename)) {
					return fmt.Errorf("%s names stage %q in %s, which is missing: copy the whole bundle folder", f.join("genai_config.json"), s.Name, s.Filename)
				}
			}
			f.Layout = LayoutBundle
			return f.readHFConfig()
		}
		name := genai.Model.Decoder.Filename
		if name == "" {
			name = "model.onnx"
		}
		if err := safepath.Rel(name); err != nil {
			return fmt.Errorf("%s names the model %q, which is not a file inside the folder (%v): EdgeChat opens only the folder's own files: %w", f.join("genai_config.json"), name, err, ErrNotModelFolder)
		}
		if !exists(f.join(name)) {
			return fmt.Errorf("%s names %s, which is not in %s: copy the whole model folder", f.join("genai_config.json"), name, f.Dir)
		}
		f.Layout, f.Model = LayoutGenAI, f.join(name)
		return f.readHFConfig()
	}
	if p, g := f.findComposite(); p != "" {
		f.Layout, f.Prefill, f.Gen = LayoutComposite, p, g
		return f.readHFConfig()
	}
	if err := f.findVariants(variant); err != nil {
		return err
	}
	f.Layout = LayoutHF
	if err := f.readHFConfig(); err != nil {
		return err
	}
	if f.Config == nil {
		return fmt.Errorf("config.json not found in %s — choose the Hugging Face model folder that holds config.json and onnx/", f.Dir)
	}
	return nil
}

// findComposite finds layout C's two decoders: flat prefixed files, or the older sub-folders.
func (f *Folder) findComposite() (prefill, gen string) {
	for _, c := range [][2]string{
		{"decoder_prefill_model.onnx", "decoder_gen_model.onnx"},
		{"decoder_prefill/model.onnx", "decoder_gen/model.onnx"},
	} {
		if exists(f.join(c[0])) && exists(f.join(c[1])) {
			return f.join(c[0]), f.join(c[1])
		}
	}
	return "", ""
}

// findVariants lists layout A's ONNX files (onnx/ or the folder itself) and picks one.
func (f *Folder) findVariants(variant string) error {
	var dir string
	var names []string
	for _, d := range []string{f.join("onnx"), f.Dir} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".onnx") {
				names = append(names, e.Name())
			}
		}
		if len(names) > 0 {
			dir = d
			break
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("%s has no ONNX model (no onnx/model*.onnx, genai_config.json or NPU build): choose the folder that holds the model: %w", f.Dir, ErrNotModelFolder)
	}
	rank := VariantRank
	sort.SliceStable(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	f.Variants = names
	pick := names[0]
	if variant != "" {
		pick = ""
		for _, n := range names {
			if n == variant {
				pick = n
			}
		}
		if pick == "" {
			return fmt.Errorf("model file %s is not in %s; available: %s", variant, dir, strings.Join(names, ", "))
		}
	}
	f.Model = filepath.Join(dir, pick)
	return nil
}

// readHFConfig reads config.json and generation_config.json when present.
func (f *Folder) readHFConfig() error {
	var c HFConfig
	ok, err := readOptionalJSON(f.join("config.json"), &c)
	if err != nil {
		return err
	}
	if ok {
		f.Config = &c
	}
	var g GenerationDefaults
	ok, err = readOptionalJSON(f.join("generation_config.json"), &g)
	if err != nil {
		return err
	}
	if ok && f.GenAI == nil {
		f.Generation = g
	}
	return nil
}

// findTokenizer locates the tokenizer (tokenizer.json, else vocab.json + merges.txt, else
// tokenizer.model), tokenizer_config.json and the chat template file.
func (f *Folder) findTokenizer() error {
	for _, set := range tokenizer.TokenizerFiles {
		if !slices.ContainsFunc(set, func(n string) bool { return !exists(f.join(n)) }) {
			f.Tokenizer = f.join(set[0])
			break
		}
	}
	if f.Tokenizer == "" {
		return fmt.Errorf("tokenizer.json not found in %s — choose the folder that holds it (it comes with the model; vocab.json with merges.txt, or tokenizer.model or spiece.model, also do)", f.Dir)
	}
	if c := f.join("tokenizer_config.json"); exists(c) {
		f.TokenizerConfig = c
	}
	cfg, err := tokenizer.ReadFolderConfig(f.Dir)
	if err != nil {
		return err
	}
	f.ChatTemplate = cfg.TemplateFile
	return nil
}

// EOS returns the end-of-sequence ids the folder's configuration names (generation config
// first, then genai_config.json, then config.json).
func (f *Folder) EOS() []int {
	if len(f.Generation.EOSTokenID) > 0 {
		return f.Generation.EOSTokenID
	}
	if f.GenAI != nil && len(f.GenAI.Model.EOSTokenID) > 0 {
		return f.GenAI.Model.EOSTokenID
	}
	if f.Config != nil {
		return f.Config.EOSTokenID
	}
	return nil
}

// VocabSize is the model's vocabulary from its configuration (genai_config.json, then
// config.json's vocab_size), 0 if unknown. It may be padded past the tokenizer's last id.
func (f *Folder) VocabSize() int {
	if f.GenAI != nil && f.GenAI.Model.VocabSize > 0 {
		return f.GenAI.Model.VocabSize
	}
	if f.Config != nil {
		return f.Config.VocabSize
	}
	return 0
}

// ContextLength is the longest sequence the model supports, from its configuration (0 if
// unknown).
func (f *Folder) ContextLength() int {
	if f.GenAI != nil && f.GenAI.Model.ContextLength > 0 {
		return f.GenAI.Model.ContextLength
	}
	if f.Config != nil {
		return f.Config.MaxPositionEmbeddings
	}
	return 0
}
