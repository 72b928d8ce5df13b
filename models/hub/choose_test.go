package hub

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func tree(paths ...string) []Entry {
	out := make([]Entry, len(paths))
	for i, p := range paths {
		out[i] = Entry{Type: "file", Path: p, Size: 1}
	}
	return out
}

// onnxCommunity is the shape of onnx-community/Qwen3-0.6B-ONNX.
var onnxCommunity = tree(".gitattributes", "README.md", "config.json", "generation_config.json",
	"onnx/model.onnx", "onnx/model.onnx_data", "onnx/model_fp16.onnx", "onnx/model_fp16.onnx_data",
	"onnx/model_q4.onnx", "onnx/model_q4f16.onnx", "onnx/model_int8.onnx", "onnx/model_quantized.onnx",
	"special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.json", "merges.txt")

// microsoftGenAI is the shape of Microsoft's onnxruntime-genai repositories.
var microsoftGenAI = tree("README.md", "LICENSE",
	"cpu_and_mobile/cpu-int4-rtn-block-32-acc-level-4/genai_config.json",
	"cpu_and_mobile/cpu-int4-rtn-block-32-acc-level-4/model.onnx",
	"cpu_and_mobile/cpu-int4-rtn-block-32-acc-level-4/model.onnx.data",
	"cpu_and_mobile/cpu-int4-rtn-block-32-acc-level-4/tokenizer.json",
	"directml/directml-int4-awq-block-128/genai_config.json",
	"directml/directml-int4-awq-block-128/model.onnx",
	"qnn-npu/genai_config.json", "qnn-npu/context_ctx.onnx", "qnn-npu/context_0_ctx_qnn.bin", "qnn-npu/tokenizer.json")

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   []Entry
		variant string
		include []string
		npu     bool
		want    Selection
		wantErr string
	}{
		{name: "int4 first for the CPU", files: onnxCommunity, want: Selection{Variant: "q4", Files: tree("config.json", "generation_config.json", "onnx/model_q4.onnx", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.json", "merges.txt")}},
		{name: "fp32 with its data", files: onnxCommunity, variant: "fp32", want: Selection{Variant: "fp32", Files: tree("config.json", "generation_config.json", "onnx/model.onnx", "onnx/model.onnx_data", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.json", "merges.txt")}},
		{name: "variant by file name", files: onnxCommunity, variant: "onnx/model_fp16.onnx", include: []string{"README.md"}, want: Selection{Variant: "fp16", Files: tree("README.md", "config.json", "generation_config.json", "onnx/model_fp16.onnx", "onnx/model_fp16.onnx_data", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.json", "merges.txt")}},
		{name: "include by base name", files: onnxCommunity, variant: "q4f16", include: []string{"*.md"}, want: Selection{Variant: "q4f16", Files: tree("README.md", "config.json", "generation_config.json", "onnx/model_q4f16.onnx", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.json", "merges.txt")}},
		{name: "unknown variant lists the others", files: onnxCommunity, variant: "int3", wantErr: "offers: q4, quantized, int8, fp32, fp16, q4f16"},
		{name: "genai: CPU int4 folder", files: microsoftGenAI, want: Selection{Dir: "cpu_and_mobile/cpu-int4-rtn-block-32-acc-level-4", Variant: "cpu_and_mobile/cpu-int4-rtn-block-32-acc-level-4", Files: microsoftGenAI[2:6]}},
		{name: "genai: NPU build on an NPU machine", files: microsoftGenAI, npu: true, want: Selection{Dir: "qnn-npu", Variant: "qnn-npu", Files: microsoftGenAI[8:]}},
		{name: "genai: folder by part of its name", files: microsoftGenAI, variant: "directml", want: Selection{Dir: "directml/directml-int4-awq-block-128", Variant: "directml/directml-int4-awq-block-128", Files: microsoftGenAI[6:8]}},
		{name: "layout B at the root", files: tree("genai_config.json", "model.onnx", "model.onnx.data", "tokenizer.json", "sub/x.txt"), want: Selection{Variant: "genai", Files: tree("genai_config.json", "model.onnx", "model.onnx.data", "tokenizer.json")}},
		{name: "a SentencePiece model where there is no tokenizer.json", files: tree("config.json", "onnx/model_q4.onnx", "spiece.model", "tokenizer_config.json"), want: Selection{Variant: "q4", Files: tree("config.json", "onnx/model_q4.onnx", "spiece.model", "tokenizer_config.json")}},
		{name: "no SentencePiece model beside a tokenizer.json", files: tree("config.json", "onnx/model_q4.onnx", "tokenizer.json", "tokenizer.model"), want: Selection{Variant: "q4", Files: tree("config.json", "onnx/model_q4.onnx", "tokenizer.json")}},
		{name: "no ONNX", files: tree("config.json", "model.safetensors"), wantErr: "holds no ONNX model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Choose(tc.files, tc.variant, tc.include, tc.npu)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("selection (-want +got):\n%s", diff)
			}
		})
	}
}

var refCases = []struct {
	in, repo, rev string
	ok            bool
}{
	{"onnx-community/Qwen3-0.6B-ONNX", "onnx-community/Qwen3-0.6B-ONNX", "main", true},
	{" org/name@v1.0 ", "org/name", "v1.0", true},
	{"org/name@0123456789abcdef0123456789abcdef01234567", "org/name", "0123456789abcdef0123456789abcdef01234567", true},
	{"name-only", "", "", false},
	{"org/../x", "", "", false},
	{"org/name/extra", "", "", false},
	{"", "", "", false},
}

func TestParseRef(t *testing.T) {
	for _, tc := range refCases {
		repo, rev, err := ParseRef(tc.in)
		if (err == nil) != tc.ok || repo != tc.repo || rev != tc.rev {
			t.Errorf("ParseRef(%q) = %q, %q, %v; want %q, %q, ok %v", tc.in, repo, rev, err, tc.repo, tc.rev, tc.ok)
		}
	}
}

func TestNextLink(t *testing.T) {
	for in, want := range map[string]string{
		`<https://h/api/models/a/b/tree/x?recursive=true&cursor=abc>; rel="next"`: "https://h/api/models/a/b/tree/x?recursive=true&cursor=abc",
		`<https://h/p2>; rel="prev", <https://h/p3>; rel="next"`:                  "https://h/p3",
		``:                           "",
		`<https://h/p1>; rel="prev"`: "",
	} {
		if got := nextLink(in); got != want {
			t.Errorf("nextLink(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseRef(f *testing.F) {
	for _, tc := range refCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		repo, _, err := ParseRef(s)
		if err != nil {
			return
		}
		if strings.Count(repo, "/") != 1 || strings.Contains(repo, "..") || strings.ContainsAny(repo, `\ :`) {
			t.Errorf("ParseRef(%q) accepted repo %q", s, repo)
		}
	})
}

func FuzzChoose(f *testing.F) {
	f.Add("onnx/model_q4.onnx\nconfig.json\ntokenizer.json", "")
	f.Add("a/genai_config.json\na/model.onnx", "a")
	f.Fuzz(func(t *testing.T, list, variant string) {
		sel, err := Choose(tree(strings.Split(list, "\n")...), variant, nil, false)
		if err == nil && len(sel.Files) == 0 {
			t.Errorf("Choose picked no files for %q without an error", list)
		}
	})
}

func TestCheckNames(t *testing.T) {
	c := &Client{Endpoint: "http://mirror"}
	for _, tc := range []struct {
		paths []string
		ok    bool
	}{
		{[]string{"config.json", "onnx/model.onnx", "onnx/model.onnx_data"}, true},
		{[]string{"README.md", "readme.md"}, false},
		{[]string{"onnx/Model.onnx", "onnx/model.onnx"}, false},
		{[]string{".pull.json"}, false},
		{[]string{"onnx/model.onnx", "onnx/model.onnx.incomplete"}, false},
	} {
		err := c.checkNames(tree(tc.paths...))
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrBadServer) {
			t.Errorf("checkNames(%q) = %v, want ok %v", tc.paths, err, tc.ok)
		}
	}
}
