package discover

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"edgechat/models"
	"edgechat/onnx/proto"
)

// Model is one model folder found on this PC.
type Model struct {
	Path   string `json:"path"` // the folder to use as a route's model
	Name   string `json:"name"` // ORG/NAME or the tool's name for it
	Source Source `json:"source"`
	Layout string `json:"layout"` // A–D
	// Kind is models.KindChat, models.KindEmbedding or models.KindReranker (the last two rank
	// documents, never answer).
	Kind string `json:"kind"`
	// Device is "npu" for NPU builds (compiled EPContext graphs, QNN session options, static
	// composites), else "cpu".
	Device string `json:"device"`
	// Quantization is "int4", "int8", "qdq", "fp16", "fp32" or "compiled".
	Quantization  string   `json:"quantization"`
	SizeBytes     int64    `json:"size_bytes"`
	ContextLength int      `json:"context_length,omitempty"`
	ModelFile     string   `json:"model_file,omitempty"` // the ONNX file a layout-A folder runs
	Variants      []string `json:"variants,omitempty"`
}

// classify describes the model in dir, or says why it cannot be used as it is.
func classify(dir string) (Model, error) {
	f, err := models.Open(dir, "")
	if err != nil {
		return Model{}, err
	}
	m := Model{Path: dir, Layout: f.Layout.Letter(), Kind: models.KindChat, Device: "cpu", ContextLength: f.ContextLength(), Variants: f.Variants}
	if f.Model != "" {
		m.ModelFile = filepath.Base(f.Model)
	}
	graphs, providers := graphFiles(f)
	if f.Layout == models.LayoutComposite || strings.Contains(providers, "qnn") {
		m.Device = "npu"
	}
	ops := map[string]bool{}
	var outFP16 bool
	keep := map[string]bool{}
	for _, g := range graphs {
		info, err := proto.ReadInfo(g)
		if err != nil {
			return m, fmt.Errorf("%s: %w", g, err)
		}
		if err := models.CheckGraphNames(g, info); err != nil {
			return m, err
		}
		keep[g] = true
		for _, x := range info.ExternalFiles {
			p := filepath.Join(filepath.Dir(g), x)
			if !exists(p) {
				return m, fmt.Errorf("%s names its weights file %s, which is missing (an unfinished download?)", g, x)
			}
			keep[p] = true
		}
		for _, c := range info.EPContexts {
			m.Device = "npu"
			if c.EmbedMode == 0 {
				p := filepath.Join(filepath.Dir(g), c.CacheContext)
				if !exists(p) {
					return m, fmt.Errorf("%s names its context binary %s, which is missing (an unfinished download?)", g, c.CacheContext)
				}
				keep[p] = true
			}
		}
		for op := range info.Ops {
			ops[op[strings.LastIndex(op, ":")+1:]] = true
		}
		if o, ok := info.Output("logits"); ok && o.ElemType == "float16" {
			outFP16 = true
		}
		switch {
		case f.Layout != models.LayoutHF:
		case models.IsRerankerGraph(info.Outputs):
			m.Kind = models.KindReranker
		case models.IsEmbeddingGraph(info.Outputs):
			m.Kind = models.KindEmbedding
		}
	}
	m.Quantization = quantization(ops, outFP16)
	m.SizeBytes = folderSize(dir, f, keep)
	return m, nil
}

// graphFiles lists the ONNX files the folder runs and the providers its config names.
func graphFiles(f *models.Folder) ([]string, string) {
	switch f.Layout {
	case models.LayoutComposite:
		return []string{f.Prefill, f.Gen}, ""
	case models.LayoutBundle:
		var out, eps []string
		for _, s := range f.GenAI.Model.Decoder.Pipeline {
			out = append(out, filepath.Join(f.Dir, s.Filename))
			ep, _ := s.SessionOptions.Provider()
			eps = append(eps, ep)
		}
		return out, strings.Join(eps, ",")
	case models.LayoutGenAI:
		ep, _ := f.GenAI.Model.Decoder.SessionOptions.Provider()
		return []string{f.Model}, ep
	}
	return []string{f.Model}, ""
}

// quantization names the weights' format from the operators the graphs use.
func quantization(ops map[string]bool, fp16 bool) string {
	switch {
	case ops["EPContext"]:
		return "compiled"
	case ops["MatMulNBits"] || ops["GatherBlockQuantized"]:
		return "int4"
	case ops["MatMulInteger"] || ops["QLinearMatMul"] || ops["DynamicQuantizeLinear"]:
		return "int8"
	case ops["QuantizeLinear"] || ops["DequantizeLinear"]:
		return "qdq"
	case fp16:
		return "fp16"
	}
	return "fp32"
}

// folderSize adds up the folder's files, leaving out the ONNX graphs and weights of the
// variants it does not run (keep lists the ones it does).
func folderSize(dir string, f *models.Folder, keep map[string]bool) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || strings.Count(p[len(dir):], string(filepath.Separator)) > 2) {
				return filepath.SkipDir
			}
			return nil
		}
		if isGraphFile(d.Name()) && !keep[p] {
			return nil
		}
		if st, err := os.Stat(p); err == nil { // follows the hub cache's symlinks
			n += st.Size()
		}
		return nil
	})
	return n
}

// isGraphFile matches ONNX graphs, their external data and context binaries.
func isGraphFile(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".onnx") || strings.Contains(n, ".onnx_data") || strings.Contains(n, ".onnx.data") || strings.HasSuffix(n, ".bin")
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
