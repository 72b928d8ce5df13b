package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// onnxBytes starts like a real ONNX file: field 1 (ir_version) = 8, then field 2 (producer).
const onnxBytes = "\x08\x08\x12\x07pytorch"

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCheckModelPath(t *testing.T) {
	root := t.TempDir()
	p := func(parts ...string) string { return filepath.Join(append([]string{root}, parts...)...) }
	writeFile(t, p("flat", "model.onnx"), onnxBytes)
	writeFile(t, p("flat", "tokenizer.json"), "{}")
	writeFile(t, p("hf", "onnx", "model_q4f16.onnx"), onnxBytes)
	writeFile(t, p("hf", "tokenizer.json"), "{}")
	writeFile(t, p("notok", "model.onnx"), onnxBytes)
	writeFile(t, p("nomodel", "tokenizer.json"), "{}")
	writeFile(t, p("nomodel", "README.md"), "# hi")
	writeFile(t, p("textmodel", "model.onnx"), "version https://git-lfs.github.com/spec/v1\n")
	writeFile(t, p("textmodel", "tokenizer.json"), "{}")
	writeFile(t, p("files", "empty.onnx"), "")
	writeFile(t, p("files", "zip.onnx"), "PK\x03\x04\x14\x00")
	writeFile(t, p("files", "notes.txt"), "hello")

	tests := []struct {
		name, path, want string
	}{
		{"empty", "", "choose the folder that holds your model"},
		{"missing", p("nope"), p("nope") + " does not exist — choose the folder that holds your model"},
		{"flat folder", p("flat"), ""},
		{"hugging face layout", p("hf"), ""},
		{"onnx file in hf layout", p("hf", "onnx", "model_q4f16.onnx"), ""},
		{"onnx file beside tokenizer", p("flat", "model.onnx"), ""},
		{"no onnx", p("nomodel"), p("nomodel") + " has no ONNX model: choose the folder that holds model.onnx or onnx/model.onnx"},
		{"no tokenizer", p("notok"), "tokenizer.json not found in " + p("notok") + " — choose the folder that holds it"},
		{"lfs pointer in folder", p("textmodel"), p("textmodel", "model.onnx") + " is not an ONNX model"},
		{"empty file", p("files", "empty.onnx"), p("files", "empty.onnx") + " is not an ONNX model"},
		{"zip file", p("files", "zip.onnx"), p("files", "zip.onnx") + " is not an ONNX model"},
		{"text file", p("files", "notes.txt"), p("files", "notes.txt") + " is not an ONNX model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, errText(CheckModelPath(tt.path))); diff != "" {
				t.Errorf("CheckModelPath(%q) (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

func TestCheckORTLibrary(t *testing.T) {
	root := t.TempDir()
	p := func(name string) string { return filepath.Join(root, name) }
	writeFile(t, p("libonnxruntime.so"), "\x7fELF\x02\x01\x01")
	writeFile(t, p("onnxruntime.dll"), "MZ\x90\x00")
	writeFile(t, p("libonnxruntime.dylib"), "\xcf\xfa\xed\xfe\x0c")
	writeFile(t, p("universal.dylib"), "\xca\xfe\xba\xbe")
	writeFile(t, p("readme.txt"), "not a library")
	writeFile(t, p("empty.dll"), "")

	tests := []struct {
		name, path, want string
	}{
		{"empty means search", "", ""},
		{"elf", p("libonnxruntime.so"), ""},
		{"pe", p("onnxruntime.dll"), ""},
		{"mach-o", p("libonnxruntime.dylib"), ""},
		{"universal mach-o", p("universal.dylib"), ""},
		{"missing", p("gone.dll"), p("gone.dll") + " does not exist — choose the ONNX Runtime library (onnxruntime.dll, libonnxruntime.so or libonnxruntime.dylib), or leave it empty to search"},
		{"folder", root, root + " is a folder — choose the ONNX Runtime library file inside it"},
		{"text", p("readme.txt"), p("readme.txt") + " is not a shared library — choose onnxruntime.dll, libonnxruntime.so or libonnxruntime.dylib"},
		{"empty file", p("empty.dll"), p("empty.dll") + " is not a shared library — choose onnxruntime.dll, libonnxruntime.so or libonnxruntime.dylib"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, errText(CheckORTLibrary(tt.path))); diff != "" {
				t.Errorf("CheckORTLibrary(%q) (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

func TestCheckEP(t *testing.T) {
	tests := []struct{ ep, want string }{
		{"cpu", ""}, {"qnn", ""}, {"dml", ""}, {"webgpu", ""},
		{"", "choose an accelerator (ONNX Runtime execution provider): one of cpu, qnn, dml, webgpu"},
		{"cuda", `unknown accelerator "cuda" (ONNX Runtime execution provider): choose one of cpu, qnn, dml, webgpu`},
		{"CPU", `unknown accelerator "CPU" (ONNX Runtime execution provider): choose one of cpu, qnn, dml, webgpu`},
	}
	for _, tt := range tests {
		t.Run(tt.ep, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, errText(CheckEP(tt.ep))); diff != "" {
				t.Errorf("CheckEP(%q) (-want +got):\n%s", tt.ep, diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	root := t.TempDir()
	model := filepath.Join(root, "qwen3")
	writeFile(t, filepath.Join(model, "model.onnx"), onnxBytes)
	writeFile(t, filepath.Join(model, "tokenizer.json"), "{}")

	tests := []struct {
		name   string
		change func(s *Settings)
		want   []FieldError
	}{
		{"defaults", func(s *Settings) {}, nil},
		{"good model", func(s *Settings) { s.CPU.Model = model }, nil},
		{"temperature edges ok", func(s *Settings) { s.Temperature = 2; s.TopP = 1; s.RepetitionPenalty = 0.5; s.MaxTokens = 32768 }, nil},
		{"temperature high", func(s *Settings) { s.Temperature = 2.1 },
			[]FieldError{{"temperature", "temperature must be between 0 and 2 (0 = always pick the most likely word)"}}},
		{"temperature negative", func(s *Settings) { s.Temperature = -0.1 },
			[]FieldError{{"temperature", "temperature must be between 0 and 2 (0 = always pick the most likely word)"}}},
		{"top-p zero", func(s *Settings) { s.TopP = 0 }, []FieldError{{"top_p", "top-p must be more than 0 and at most 1"}}},
		{"top-p over one", func(s *Settings) { s.TopP = 1.01 }, []FieldError{{"top_p", "top-p must be more than 0 and at most 1"}}},
		{"top-k negative", func(s *Settings) { s.TopK = -1 }, []FieldError{{"top_k", "top-k must be 0 (off) or more"}}},
		{"max tokens zero", func(s *Settings) { s.MaxTokens = 0 }, []FieldError{{"max_tokens", "max tokens must be between 1 and 32768"}}},
		{"max tokens huge", func(s *Settings) { s.MaxTokens = 32769 }, []FieldError{{"max_tokens", "max tokens must be between 1 and 32768"}}},
		{"repetition penalty", func(s *Settings) { s.RepetitionPenalty = 2.5 },
			[]FieldError{{"repetition_penalty", "repetition penalty must be between 0.5 and 2 (1 = off)"}}},
		{"theme", func(s *Settings) { s.Theme = "blue" }, []FieldError{{"theme", "theme must be one of system, light, dark"}}},
		{"threads", func(s *Settings) { s.CPU.Threads = -2 }, []FieldError{{"cpu.threads", "threads must be from 0 (use all physical cores) to 1024"}}},
		{"threads huge", func(s *Settings) { s.NPU.Threads = 1 << 30 }, []FieldError{{"npu.threads", "threads must be from 0 (use all physical cores) to 1024"}}},
		{"prefill", func(s *Settings) { s.PrefillLimit = -1 }, []FieldError{{"prefill_limit", "prefill limit must be 0 (derive from the NPU model) or more"}}},
		{"ep", func(s *Settings) { s.NPU.EP = "cuda" }, []FieldError{{"npu.ep", `unknown accelerator "cuda" (ONNX Runtime execution provider): choose one of cpu, qnn, dml, webgpu`}}},
		{"missing model", func(s *Settings) { s.NPU.Model = filepath.Join(root, "gone") },
			[]FieldError{{"npu.model", filepath.Join(root, "gone") + " does not exist — choose the folder that holds your model"}}},
		{"model file ok", func(s *Settings) { s.CPU.Model = model; s.CPU.ModelFile = "model.onnx" }, nil},
		{"model file missing", func(s *Settings) { s.CPU.Model = model; s.CPU.ModelFile = "model_q4.onnx" },
			[]FieldError{{"cpu.model_file", "model_q4.onnx not found in " + filepath.Join(model, "onnx") + " — leave it empty to use the best model available"}}},
		{"ort library", func(s *Settings) { s.ORTLibrary = model },
			[]FieldError{{"ort_library", model + " is a folder — choose the ONNX Runtime library file inside it"}}},
		{"power mode pinned", func(s *Settings) { s.Power.Mode = "saver"; s.Power.SaverHTPMode = "power_saver" }, nil},
		{"power mode", func(s *Settings) { s.Power.Mode = "eco" }, []FieldError{{"power.mode", "power mode must be one of auto, performance, saver"}}},
		{"saver htp mode", func(s *Settings) { s.Power.SaverHTPMode = "slow" }, []FieldError{{"power.saver_htp_mode",
			"the battery saver's QNN performance mode must be one of burst, sustained_high_performance, high_performance, balanced, low_balanced, high_power_saver, power_saver, low_power_saver, extreme_power_saver, default"}}},
		{"remote url", func(s *Settings) { s.Remote.BaseURL = "localhost:11434" },
			[]FieldError{{"remote.base_url", "remote URL must look like https://host/v1"}}},
		{"embedding model off", func(s *Settings) { s.EmbeddingModel = EmbeddingOff }, nil},
		{"embedding model folder", func(s *Settings) { s.EmbeddingModel = model }, nil},
		{"embedding model missing", func(s *Settings) { s.EmbeddingModel = filepath.Join(root, "gone") },
			[]FieldError{{"embedding_model", filepath.Join(root, "gone") + " is not a folder — choose a text-embedding model's folder, leave it empty to find one, or write off"}}},
		{"reranker off", func(s *Settings) { s.RerankerModel = EmbeddingOff }, nil},
		{"reranker folder", func(s *Settings) { s.RerankerModel = model }, nil},
		{"reranker missing", func(s *Settings) { s.RerankerModel = filepath.Join(root, "gone") },
			[]FieldError{{"reranker_model", filepath.Join(root, "gone") + " is not a folder — choose a reranker's folder (a cross-encoder such as ms-marco-MiniLM-L-6-v2), leave it empty to find one, or write off"}}},
		{"mcp config a folder", func(s *Settings) { s.MCPConfig = model },
			[]FieldError{{"mcp_config", model + ` is not a file — choose an mcp.json ({"mcpServers": {…}}), or leave it empty for no tools`}}},
		{"server addr", func(s *Settings) { s.Server.Enabled = true; s.Server.Addr = "8080" },
			[]FieldError{{"server.addr", "server address must be host:port, e.g. 127.0.0.1:8080"}}},
		{"several in order", func(s *Settings) { s.Temperature = 3; s.Theme = "" },
			[]FieldError{
				{"temperature", "temperature must be between 0 and 2 (0 = always pick the most likely word)"},
				{"theme", "theme must be one of system, light, dark"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Defaults()
			tt.change(&s)
			if diff := cmp.Diff(tt.want, s.Validate()); diff != "" {
				t.Errorf("Validate() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckDataDir(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	writeFile(t, file, "x")
	existing := filepath.Join(root, "data")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, want string // want: part of the error, "" for none
	}{
		{"existing folder", existing, ""},
		{"to be created", filepath.Join(root, "new", "deeper"), ""},
		{"a file", file, "is a file — choose a folder"},
		{"under a file", filepath.Join(file, "data"), file + " is a file, not a folder"},
		{"under /dev/null", "/dev/null/data", "/dev/null is a file, not a folder"},
		{"empty", "", "the data folder is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDataDir(tt.dir)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("CheckDataDir(%q) = %v, want an error containing %q", tt.dir, err, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "new")); err == nil {
		t.Error("the check created a folder")
	}
	if entries, _ := os.ReadDir(existing); len(entries) != 0 {
		t.Errorf("the check left %d files behind", len(entries))
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(root, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		if err := CheckDataDir(filepath.Join(ro, "data")); err == nil || !strings.Contains(err.Error(), "cannot write in") {
			t.Errorf("CheckDataDir under a read-only folder = %v, want cannot write", err)
		}
	}
	s := Defaults()
	s.DataDir = "/dev/null/data"
	errs := s.Validate()
	if len(errs) != 1 || errs[0].Field != "data_dir" {
		t.Errorf("Validate with data_dir /dev/null/data = %v, want one data_dir error", errs)
	}
}
