package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"edgechat/internal/eps"

	"edgechat/tokenizer"
)

// MaxThreads bounds the CPU thread setting: each thread is a real OS thread with its stack.
const MaxThreads = 1024

// EPs lists the execution providers EdgeChat can use (the internal/eps table).
var EPs = eps.Names()

// FieldError is one problem with one setting; Field is the setting key ("temperature",
// "cpu.model") and Message says what to do.
type FieldError struct {
	Field, Message string
}

func (e FieldError) Error() string { return e.Field + ": " + e.Message }

// CheckModelPath checks that p is a model folder (model.onnx or *.onnx at its root or in onnx/,
// and tokenizer.json) or an ONNX file with tokenizer.json beside it or one folder up.
func CheckModelPath(p string) error {
	if p == "" {
		return errors.New("choose the folder that holds your model")
	}
	info, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist — choose the folder that holds your model", p)
	}
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", p, err)
	}
	if !info.IsDir() {
		if err := checkONNXFile(p); err != nil {
			return err
		}
		dir := filepath.Dir(p)
		if hasTokenizer(dir) || hasTokenizer(filepath.Dir(dir)) {
			return nil
		}
		return fmt.Errorf("tokenizer.json not found in %s — choose the folder that holds it", dir)
	}
	model := findONNX(p)
	if model == "" {
		return fmt.Errorf("%s has no ONNX model: choose the folder that holds model.onnx or onnx/model.onnx", p)
	}
	if !hasTokenizer(p) {
		return fmt.Errorf("tokenizer.json not found in %s — choose the folder that holds it", p)
	}
	return checkONNXFile(model)
}

// hasTokenizer reports whether dir holds tokenizer files: tokenizer.json, or what the
// tokenizer is built from (vocab.json with merges.txt, tokenizer.model, spiece.model).
func hasTokenizer(dir string) bool {
	return tokenizer.HasFiles(func(n string) bool { return fileExists(filepath.Join(dir, n)) })
}

// checkModelFile checks that the chosen variant exists in the model folder or its onnx/.
func checkModelFile(model, file string) error {
	if file == "" {
		return nil
	}
	if info, err := os.Stat(model); err != nil || !info.IsDir() {
		return nil // CheckModelPath reports the folder; a .onnx Model ignores ModelFile
	}
	for _, p := range []string{filepath.Join(model, "onnx", file), filepath.Join(model, file)} {
		if fileExists(p) {
			return checkONNXFile(p)
		}
	}
	return fmt.Errorf("%s not found in %s — leave it empty to use the best model available", file, filepath.Join(model, "onnx"))
}

// findONNX returns the model file in dir: model.onnx first, else the first *.onnx, looking in
// dir itself and then in dir/onnx (Hugging Face layout).
func findONNX(dir string) string {
	for _, d := range []string{dir, filepath.Join(dir, "onnx")} {
		if p := filepath.Join(d, "model.onnx"); fileExists(p) {
			return p
		}
		matches, _ := filepath.Glob(filepath.Join(d, "*.onnx"))
		slices.Sort(matches)
		for _, m := range matches {
			if fileExists(m) {
				return m
			}
		}
	}
	return ""
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// checkONNXFile looks at the first bytes of p: an ONNX model is a protobuf ModelProto whose
// first field is ir_version (tag 0x08) followed by a small varint.
func checkONNXFile(p string) error {
	head, err := readHead(p, 2)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", p, err)
	}
	if len(head) < 2 || head[0] != 0x08 || head[1] == 0 || head[1] >= 0x80 {
		return fmt.Errorf("%s is not an ONNX model", p)
	}
	return nil
}

func readHead(p string, n int) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:k], nil
}

// libraryMagic are the first bytes of ELF, PE (MZ) and Mach-O (thin and universal) files.
var libraryMagic = [][]byte{
	[]byte("\x7fELF"),
	[]byte("MZ"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe},
	{0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
}

// CheckORTLibrary checks the ONNX Runtime library path; "" (search for it) is fine.
func CheckORTLibrary(p string) error {
	if p == "" {
		return nil
	}
	info, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist — choose the ONNX Runtime library (onnxruntime.dll, libonnxruntime.so or libonnxruntime.dylib), or leave it empty to search", p)
	}
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", p, err)
	}
	if info.IsDir() {
		return fmt.Errorf("%s is a folder — choose the ONNX Runtime library file inside it", p)
	}
	head, err := readHead(p, 4)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", p, err)
	}
	for _, m := range libraryMagic {
		if bytes.HasPrefix(head, m) {
			return nil
		}
	}
	return fmt.Errorf("%s is not a shared library — choose onnxruntime.dll, libonnxruntime.so or libonnxruntime.dylib", p)
}

// CheckEP checks that ep is one of EPs.
func CheckEP(ep string) error {
	if slices.Contains(EPs, ep) {
		return nil
	}
	if ep == "" {
		return fmt.Errorf("choose an accelerator (ONNX Runtime execution provider): one of %s", strings.Join(EPs, ", "))
	}
	return fmt.Errorf("unknown accelerator %q (ONNX Runtime execution provider): choose one of %s", ep, strings.Join(EPs, ", "))
}

// Validate returns every problem in s, in a fixed order, with messages for the settings pane.
// Model paths are checked only when set (an empty NPU model means "no NPU route").
func (s Settings) Validate() []FieldError {
	var errs []FieldError
	add := func(field string, err error) {
		if err != nil {
			errs = append(errs, FieldError{field, err.Error()})
		}
	}
	rng := func(field string, bad bool, msg string) {
		if bad {
			errs = append(errs, FieldError{field, msg})
		}
	}
	for _, r := range []struct {
		prefix string
		route  Route
	}{{"npu", s.NPU}, {"cpu", s.CPU}} {
		if r.route.Model != "" {
			add(r.prefix+".model", CheckModelPath(r.route.Model))
			add(r.prefix+".model_file", checkModelFile(r.route.Model, r.route.ModelFile))
		}
		add(r.prefix+".ep", CheckEP(r.route.EP))
		rng(r.prefix+".threads", r.route.Threads < 0 || r.route.Threads > MaxThreads, fmt.Sprintf("threads must be from 0 (use all physical cores) to %d", MaxThreads))
	}
	add("ort_library", CheckORTLibrary(s.ORTLibrary))
	rng("power.mode", !slices.Contains(eps.PowerModes, s.Power.Mode), fmt.Sprintf("power mode must be one of %s", strings.Join(eps.PowerModes, ", ")))
	rng("power.saver_htp_mode", !slices.Contains(eps.HTPModes, s.Power.SaverHTPMode),
		fmt.Sprintf("the battery saver's QNN performance mode must be one of %s", strings.Join(eps.HTPModes, ", ")))
	rng("prefill_limit", s.PrefillLimit < 0, "prefill limit must be 0 (derive from the NPU model) or more")
	rng("temperature", !(s.Temperature >= 0 && s.Temperature <= 2), "temperature must be between 0 and 2 (0 = always pick the most likely word)")
	rng("top_p", !(s.TopP > 0 && s.TopP <= 1), "top-p must be more than 0 and at most 1")
	rng("top_k", s.TopK < 0, "top-k must be 0 (off) or more")
	rng("max_tokens", s.MaxTokens < 1 || s.MaxTokens > 32768, "max tokens must be between 1 and 32768")
	rng("repetition_penalty", !(s.RepetitionPenalty >= 0.5 && s.RepetitionPenalty <= 2), "repetition penalty must be between 0.5 and 2 (1 = off)")
	rng("kv_cache", !slices.Contains(KVCaches, s.KVCache), fmt.Sprintf("KV cache must be one of %s", strings.Join(KVCaches, ", ")))
	rng("theme", !slices.Contains(Themes, s.Theme), fmt.Sprintf("theme must be one of %s", strings.Join(Themes, ", ")))
	if s.Remote.BaseURL != "" {
		u, err := url.Parse(s.Remote.BaseURL)
		rng("remote.base_url", err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "",
			"remote URL must look like https://host/v1")
	}
	for _, d := range s.UserModelFolders() {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			errs = append(errs, FieldError{"model_folders", fmt.Sprintf("%s is not a folder — remove it from the list or fix its name", d)})
			break
		}
	}
	if p := s.MCPConfig; p != "" {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			errs = append(errs, FieldError{"mcp_config", fmt.Sprintf("%s is not a file — choose an mcp.json ({\"mcpServers\": {…}}), or leave it empty for no tools", p)})
		}
	}
	if m := s.EmbeddingModel; m != "" && m != EmbeddingOff {
		if st, err := os.Stat(m); err != nil || !st.IsDir() {
			errs = append(errs, FieldError{"embedding_model", fmt.Sprintf("%s is not a folder — choose a text-embedding model's folder, leave it empty to find one, or write %s", m, EmbeddingOff)})
		}
	}
	if m := s.RerankerModel; m != "" && m != EmbeddingOff {
		if st, err := os.Stat(m); err != nil || !st.IsDir() {
			errs = append(errs, FieldError{"reranker_model", fmt.Sprintf("%s is not a folder — choose a reranker's folder (a cross-encoder such as ms-marco-MiniLM-L-6-v2), leave it empty to find one, or write %s", m, EmbeddingOff)})
		}
	}
	if s.DataDir != "" {
		add("data_dir", CheckDataDir(s.DataDir))
	}
	if s.ModelsDir != "" {
		add("models_dir", CheckModelsDir(s.ModelsDir))
	}
	if s.Server.Enabled {
		_, _, err := net.SplitHostPort(s.Server.Addr)
		rng("server.addr", err != nil, "server address must be host:port, e.g. 127.0.0.1:8080")
	}
	return errs
}

// CheckDataDir reports whether dir can hold EdgeChat's conversations: an existing folder
// EdgeChat can write in, or a path whose nearest existing parent is a folder it can write in
// (the folder is then created on first use). It leaves nothing behind. "/dev/null/data" is
// refused: /dev/null is not a folder.
func CheckDataDir(dir string) error {
	if dir == "" {
		return errors.New("the data folder is empty — choose a folder, or leave the setting out to use the default")
	}
	return checkFolder(dir, "your conversations")
}

// CheckModelsDir reports whether dir can receive downloaded models, as CheckDataDir does for
// conversations.
func CheckModelsDir(dir string) error {
	if dir == "" {
		return errors.New("the models folder is empty — choose a folder, or leave the setting out to use the default")
	}
	return checkFolder(dir, "downloaded models")
}

// checkFolder reports whether dir is, or can be created as, a folder EdgeChat can write in;
// what says what the folder is for ("your conversations").
func checkFolder(dir, what string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%s is not a usable path: %v", dir, err)
	}
	p := abs
	for {
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			if p == abs {
				return fmt.Errorf("%s is a file — choose a folder for %s", dir, what)
			}
			return fmt.Errorf("%s cannot be created: %s is a file, not a folder — choose another folder", dir, p)
		case err == nil:
			if werr := probeWrite(p); werr != nil {
				if p == abs {
					return fmt.Errorf("EdgeChat cannot write in %s (%v) — choose a folder you can write to", dir, werr)
				}
				return fmt.Errorf("%s cannot be created: EdgeChat cannot write in %s (%v) — choose a folder you can write to", dir, p, werr)
			}
			return nil
		case errors.Is(err, fs.ErrPermission):
			return fmt.Errorf("%s cannot be used: %v — choose another folder", dir, err)
		}
		// Missing, or a path through a file ("not a directory"): look at the parent.
		parent := filepath.Dir(p)
		if parent == p {
			return fmt.Errorf("%s cannot be created: none of its parent folders exists — choose another folder", dir)
		}
		p = parent
	}
}

// probeWrite creates and removes a file in dir.
func probeWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".edgechat-write-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
