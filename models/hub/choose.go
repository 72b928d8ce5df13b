package hub

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"edgechat/models"
)

// Selection is what Choose picked: the files to fetch and the sub-folder of the repository
// that is the model folder ("" = its root).
type Selection struct {
	Files   []Entry
	Dir     string
	Variant string
}

// supportFiles are the configuration and tokenizer files a model folder needs beside its graph.
var supportFiles = []string{
	"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
	"special_tokens_map.json", "added_tokens.json", "vocab.json", "merges.txt",
	"chat_template.jinja", "chat_template.json",
}

// Variants lists what a repository offers: layout-A variant names (q4, fp16, fp32, …, best
// for the CPU first) and the sub-folders that hold an onnxruntime-genai or NPU build.
func Variants(files []Entry) (onnx []string, folders []string) {
	for _, f := range files {
		if path.Base(f.Path) == "genai_config.json" {
			folders = append(folders, dirOf(f.Path))
		}
	}
	for _, f := range files {
		if dirOf(f.Path) == "" && strings.HasPrefix(f.Path, "decoder_prefill") && !slices.Contains(folders, "") {
			folders = append(folders, "") // a layout-C NPU build at the root
		}
	}
	rootGenAI := slices.Contains(folders, "")
	for _, f := range files {
		if v, ok := onnxVariant(f.Path); ok && !(rootGenAI && dirOf(f.Path) == "") {
			onnx = append(onnx, v)
		}
	}
	sort.SliceStable(onnx, func(i, j int) bool {
		return models.VariantRank(variantFile(onnx[i])) < models.VariantRank(variantFile(onnx[j]))
	})
	sort.Slice(folders, func(i, j int) bool { return folderRank(folders[i]) < folderRank(folders[j]) })
	return onnx, folders
}

// onnxVariant names the variant of a Hugging Face export's graph: onnx/model_q4.onnx → q4,
// onnx/model.onnx → fp32.
func onnxVariant(p string) (string, bool) {
	dir, base := dirOf(p), path.Base(p)
	if (dir != "onnx" && dir != "") || !strings.HasPrefix(base, "model") || !strings.HasSuffix(base, ".onnx") {
		return "", false
	}
	v := strings.TrimSuffix(strings.TrimPrefix(base, "model"), ".onnx")
	switch {
	case v == "":
		return "fp32", true
	case strings.HasPrefix(v, "_"):
		return v[1:], true
	}
	return "", false
}

// variantFile is the graph's base name for a variant name.
func variantFile(v string) string {
	if v == "fp32" {
		return "model.onnx"
	}
	return "model_" + v + ".onnx"
}

// folderRank puts CPU int4 builds first, then other CPU builds, then the rest.
func folderRank(dir string) int {
	d := strings.ToLower(dir)
	switch {
	case strings.Contains(d, "cpu") && strings.Contains(d, "int4"):
		return 0
	case strings.Contains(d, "cpu"):
		return 1
	case strings.Contains(d, "npu") || strings.Contains(d, "qnn"):
		return 3
	}
	return 2
}

func isNPUFolder(dir string) bool {
	d := strings.ToLower(dir)
	return strings.Contains(d, "npu") || strings.Contains(d, "qnn")
}

func dirOf(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// Choose picks the files of one model folder: a layout-A variant (variant "q4", "fp16",
// "fp32", … or a graph's base name) with its external data and the root's configuration and
// tokenizer files, or a sub-folder holding a genai/NPU build (variant matches its path). With
// variant "" it picks the NPU build when npu is set and the repository has one, else the best
// CPU variant (int4 first). include adds files whose path or base name matches a glob.
func Choose(files []Entry, variant string, include []string, npu bool) (Selection, error) {
	onnx, folders := Variants(files)
	var sel Selection
	folder := false // the model is a whole folder of the repository
	useFolder := func(d string) {
		sel.Dir, sel.Variant, folder = d, d, true
		if d == "" {
			sel.Variant = "genai"
		}
	}
	switch {
	case variant != "":
		v := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(variant, "onnx/"), "model_"), ".onnx")
		if variant == "model.onnx" {
			v = "fp32"
		}
		if slices.Contains(onnx, v) {
			sel.Variant = v
			break
		}
		for _, d := range folders {
			if d != "" && (strings.EqualFold(d, variant) || strings.Contains(strings.ToLower(d), strings.ToLower(variant))) {
				useFolder(d)
				break
			}
		}
		if sel.Variant == "" {
			return sel, fmt.Errorf("the repository has no variant %q; it offers: %s", variant, strings.Join(append(onnx, folders...), ", "))
		}
	case npu && slices.ContainsFunc(folders, isNPUFolder):
		useFolder(folders[slices.IndexFunc(folders, isNPUFolder)])
	case len(onnx) > 0:
		sel.Variant = onnx[0]
	case len(folders) > 0:
		useFolder(folders[0])
	default:
		return sel, fmt.Errorf("the repository holds no ONNX model EdgeChat can run (no onnx/model*.onnx and no genai_config.json): pick an ONNX export, e.g. onnx-community/Qwen3-0.6B-ONNX")
	}
	pick := map[string]bool{}
	if folder {
		for _, f := range files {
			if sel.Dir == "" && dirOf(f.Path) == "" || sel.Dir != "" && strings.HasPrefix(f.Path, sel.Dir+"/") {
				pick[f.Path] = true
			}
		}
	} else {
		graph := variantFile(sel.Variant)
		// A SentencePiece model is the tokenizer only where the repository has no tokenizer.json
		// (Llama 2, Mistral and T5 era repositories): then it is fetched too, else it is skipped
		// (megabytes EdgeChat would not read).
		spm := !slices.ContainsFunc(files, func(f Entry) bool { return f.Path == "tokenizer.json" })
		for _, f := range files {
			dir, base := dirOf(f.Path), path.Base(f.Path)
			switch {
			case dir == "" && slices.Contains(supportFiles, base):
				pick[f.Path] = true
			case dir == "" && spm && (base == "tokenizer.model" || base == "spiece.model"):
				pick[f.Path] = true
			case (dir == "onnx" || dir == "") && (base == graph || strings.HasPrefix(base, graph+"_data") || strings.HasPrefix(base, graph+".data")):
				pick[f.Path] = true
			}
		}
	}
	for _, f := range files {
		for _, g := range include {
			if m, _ := path.Match(g, f.Path); m {
				pick[f.Path] = true
			} else if m, _ := path.Match(g, path.Base(f.Path)); m {
				pick[f.Path] = true
			}
		}
	}
	for _, f := range files {
		if pick[f.Path] {
			sel.Files = append(sel.Files, f)
		}
	}
	if len(sel.Files) == 0 {
		return sel, fmt.Errorf("variant %s has no files to download", sel.Variant)
	}
	return sel, nil
}
