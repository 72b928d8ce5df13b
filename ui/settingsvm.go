package ui

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2/data/binding"

	"edgechat/config"
	"edgechat/internal/eps"
	"edgechat/internal/host"
)

// Setting keys the pane edits: config's keys, plus "*.ep_options" as "key=value, key=value".
var settingKeys = []string{
	"npu.model", "npu.model_file", "npu.ep", "npu.ep_options",
	"cpu.model", "cpu.model_file", "cpu.ep", "cpu.ep_options", "cpu.threads",
	"ort_library", "prefill_limit", "power.mode", "power.saver_htp_mode",
	"temperature", "top_p", "top_k", "max_tokens", "repetition_penalty", "system_prompt",
	"kv_cache", "theme", "data_dir", "models_dir", "model_folders", "hf_token", "embedding_model", "reranker_model", "mcp_config",
	"remote.base_url", "remote.model", "remote.api_key", "server.addr", "server.api_key",
	"ocr.tesseract", "ocr.languages",
}

// SettingsVM edits a copy of the settings as text fields with inline validation, tests a
// route's model and saves through the store. Methods run on the main goroutine.
type SettingsVM struct {
	Fields   map[string]binding.String // by setting key
	Errors   map[string]binding.String // by setting key; "" = fine
	Thinking binding.Bool
	// Lookup turns prompt-lookup decoding on.
	Lookup binding.Bool
	// PromptInt8 runs the CPU model's prompts on 8-bit weights.
	PromptInt8 binding.Bool
	// Int8Refused says why this processor cannot run PromptInt8 ("" where it can): the
	// engine then runs prompts on the 4-bit weights whatever the setting says.
	Int8Refused string
	// RemoteLong sends long prompts to the remote server instead of the CPU.
	RemoteLong binding.Bool
	// ServerOn runs the OpenAI-compatible local server next to the window.
	ServerOn binding.Bool
	Summary  binding.String // what Save did, or why it did not
	// SummaryLevel is the kind of Summary: one of the Summary* constants.
	SummaryLevel binding.Int
	Testing      binding.Bool
	Result       binding.String // the Test button's inspect summary or error
	Tested       binding.String // the route Result is about: "npu" or "cpu"
	// NPUFound says this PC has an ONNX Runtime build for the NPU (see NPUFinder).
	NPUFound binding.Bool
	// npuChecked is closed once NPUFound holds what the tester found.
	npuChecked <-chan struct{}
	// ToolsList is what "Show tools" found: each server's tools with descriptions.
	ToolsList binding.String
	// ocrState is text recognition: the switch and which tesseract was found (settingsocr.go).
	ocrState

	// Overridden maps setting keys to the EDGECHAT_* variable that sets them for this run.
	Overridden map[string]string

	// OnSaved is called after a successful Save (apply the theme, reopen the history…).
	OnSaved func(config.Settings)

	store  SettingsStore
	tester ModelTester
	base   config.Settings // fields the pane does not show pass through
	shown  []string        // the fields' and switches' values as last reset or saved (Dirty)
	cancel context.CancelFunc
}

// NewSettingsVM shows the store's current settings.
func NewSettingsVM(store SettingsStore, tester ModelTester) *SettingsVM {
	vm := &SettingsVM{
		Fields: map[string]binding.String{}, Errors: map[string]binding.String{},
		Thinking: binding.NewBool(), Lookup: binding.NewBool(), PromptInt8: binding.NewBool(), Summary: binding.NewString(), SummaryLevel: binding.NewInt(),
		RemoteLong: binding.NewBool(), ServerOn: binding.NewBool(),
		Testing: binding.NewBool(), Result: binding.NewString(), Tested: binding.NewString(), ToolsList: binding.NewString(),
		NPUFound: binding.NewBool(), Int8Refused: host.Int8PromptsRefused(), store: store, tester: tester,
		ocrState: newOCRState(),
	}
	vm.npuChecked = findNPU(tester, vm.NPUFound)
	for _, k := range settingKeys {
		vm.Fields[k], vm.Errors[k] = binding.NewString(), binding.NewString()
	}
	vm.Overridden = map[string]string{}
	if o, ok := store.(interface{ Overridden() []string }); ok {
		for _, env := range o.Overridden() {
			for _, k := range settingKeys {
				if env == k || strings.HasPrefix(env, k+".") {
					vm.Overridden[k] = config.EnvName(env)
				}
			}
		}
	}
	vm.Reset()
	vm.FindOCR()
	for _, k := range settingKeys {
		vm.Fields[k].AddListener(binding.NewDataListener(func() { vm.Validate() }))
	}
	vm.ServerOn.AddListener(binding.NewDataListener(func() { vm.Validate() }))
	return vm
}

// Reset shows the saved settings again, dropping unsaved edits.
func (vm *SettingsVM) Reset() {
	s := vm.store.Settings()
	vm.base = s
	f := func(k, v string) { _ = vm.Fields[k].Set(v) }
	for _, r := range []struct {
		p string
		r config.Route
	}{{"npu", s.NPU}, {"cpu", s.CPU}} {
		f(r.p+".model", r.r.Model)
		f(r.p+".model_file", r.r.ModelFile)
		f(r.p+".ep", r.r.EP)
		f(r.p+".ep_options", eps.FormatOptions(r.r.EPOptions))
	}
	f("cpu.threads", strconv.Itoa(s.CPU.Threads))
	f("ort_library", s.ORTLibrary)
	f("prefill_limit", strconv.Itoa(s.PrefillLimit))
	f("power.mode", s.Power.Mode)
	f("power.saver_htp_mode", s.Power.SaverHTPMode)
	f("temperature", strconv.FormatFloat(s.Temperature, 'g', -1, 64))
	f("top_p", strconv.FormatFloat(s.TopP, 'g', -1, 64))
	f("top_k", strconv.Itoa(s.TopK))
	f("max_tokens", strconv.Itoa(s.MaxTokens))
	f("repetition_penalty", strconv.FormatFloat(s.RepetitionPenalty, 'g', -1, 64))
	f("system_prompt", s.SystemPrompt)
	f("kv_cache", s.KVCache)
	f("theme", s.Theme)
	f("data_dir", s.DataDir)
	f("models_dir", s.ModelsDir)
	f("model_folders", s.ModelFolders)
	f("hf_token", s.HFToken)
	f("embedding_model", s.EmbeddingModel)
	f("reranker_model", s.RerankerModel)
	f("mcp_config", s.MCPConfig)
	f("remote.base_url", s.Remote.BaseURL)
	f("remote.model", s.Remote.Model)
	f("remote.api_key", s.Remote.APIKey)
	f("server.addr", s.Server.Addr)
	f("server.api_key", s.Server.APIKey)
	f("ocr.tesseract", s.OCR.Tesseract)
	f("ocr.languages", s.OCR.Languages)
	_ = vm.OCR.Set(s.OCR.Enabled)
	_ = vm.Thinking.Set(s.Thinking)
	_ = vm.Lookup.Set(s.PromptLookup)
	_ = vm.PromptInt8.Set(s.PromptInt8)
	_ = vm.RemoteLong.Set(s.Remote.UseForLongPrompts)
	_ = vm.ServerOn.Set(s.Server.Enabled)
	vm.setSummary(SummaryError, "")
	_ = vm.Result.Set("")
	_ = vm.Tested.Set("")
	vm.shown = vm.values()
}

// values lists what the pane shows: every field and switch, in a fixed order.
func (vm *SettingsVM) values() []string {
	keys := make([]string, 0, len(vm.Fields))
	for k := range vm.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, 0, len(keys)+5)
	for _, k := range keys {
		out = append(out, k+"="+get[string](vm.Fields[k]))
	}
	for _, b := range []binding.Bool{vm.Thinking, vm.Lookup, vm.PromptInt8, vm.RemoteLong, vm.ServerOn, vm.OCR} {
		out = append(out, strconv.FormatBool(get[bool](b)))
	}
	return out
}

// Dirty reports whether the pane shows edits that were not saved.
func (vm *SettingsVM) Dirty() bool { return !slices.Equal(vm.values(), vm.shown) }

// Collect turns the fields into Settings; it returns the fields that do not parse.
func (vm *SettingsVM) Collect() (config.Settings, []config.FieldError) {
	s := vm.base
	var errs []config.FieldError
	str := func(k string) string { return strings.TrimSpace(get[string](vm.Fields[k])) }
	num := func(k string, dst *int, example string) {
		v, err := strconv.Atoi(str(k))
		if err != nil {
			errs = append(errs, config.FieldError{Field: k, Message: "enter a whole number, e.g. " + example})
			return
		}
		*dst = v
	}
	flt := func(k string, dst *float64, example string) {
		v, err := strconv.ParseFloat(strings.ReplaceAll(str(k), ",", "."), 64)
		if err != nil {
			errs = append(errs, config.FieldError{Field: k, Message: "enter a number, e.g. " + example})
			return
		}
		*dst = v
	}
	for _, r := range []struct {
		p string
		r *config.Route
	}{{"npu", &s.NPU}, {"cpu", &s.CPU}} {
		r.r.Model, r.r.ModelFile, r.r.EP = str(r.p+".model"), str(r.p+".model_file"), str(r.p+".ep")
		opts, err := parseOptions(str(r.p + ".ep_options"))
		if err != nil {
			errs = append(errs, config.FieldError{Field: r.p + ".ep_options", Message: err.Error()})
		}
		r.r.EPOptions = opts
	}
	num("cpu.threads", &s.CPU.Threads, "0 for all physical cores")
	s.ORTLibrary = str("ort_library")
	num("prefill_limit", &s.PrefillLimit, "64 (0 = from the NPU model)")
	s.Power.Mode, s.Power.SaverHTPMode = str("power.mode"), str("power.saver_htp_mode")
	flt("temperature", &s.Temperature, "0.6")
	flt("top_p", &s.TopP, "0.95")
	num("top_k", &s.TopK, "20")
	num("max_tokens", &s.MaxTokens, "1024")
	flt("repetition_penalty", &s.RepetitionPenalty, "1.0")
	s.SystemPrompt = get[string](vm.Fields["system_prompt"])
	s.Theme = str("theme")
	s.DataDir = str("data_dir")
	s.ModelsDir, s.ModelFolders, s.HFToken = str("models_dir"), str("model_folders"), str("hf_token")
	s.EmbeddingModel, s.RerankerModel = str("embedding_model"), str("reranker_model")
	s.MCPConfig = str("mcp_config")
	s.Thinking = get[bool](vm.Thinking)
	s.PromptLookup = get[bool](vm.Lookup)
	s.KVCache = str("kv_cache")
	s.PromptInt8 = get[bool](vm.PromptInt8)
	s.Remote.BaseURL, s.Remote.Model, s.Remote.APIKey = str("remote.base_url"), str("remote.model"), str("remote.api_key")
	s.Remote.UseForLongPrompts = get[bool](vm.RemoteLong)
	s.Server.Enabled, s.Server.Addr, s.Server.APIKey = get[bool](vm.ServerOn), str("server.addr"), str("server.api_key")
	s.OCR = config.OCR{Enabled: get[bool](vm.OCR), Tesseract: str("ocr.tesseract"), Languages: str("ocr.languages")}
	return s, errs
}

// Validate shows every problem next to its field and reports whether there are none.
func (vm *SettingsVM) Validate() bool {
	s, errs := vm.Collect()
	bad := map[string]bool{}
	for _, e := range errs {
		bad[e.Field] = true
	}
	for _, e := range s.Validate() {
		if !bad[e.Field] {
			errs = append(errs, e)
			bad[e.Field] = true
		}
	}
	if c, ok := vm.tester.(EPChecker); ok {
		for _, r := range []struct {
			p string
			r config.Route
		}{{"npu", s.NPU}, {"cpu", s.CPU}} {
			if r.r.Model == "" || bad[r.p+".ep"] {
				continue
			}
			if err := c.CheckEP(r.r.EP); err != nil {
				errs = append(errs, config.FieldError{Field: r.p + ".ep", Message: err.Error()})
				bad[r.p+".ep"] = true
			}
		}
	}
	if s.NPU.Model == "" && s.CPU.Model == "" && !bad["cpu.model"] {
		errs = append(errs, config.FieldError{Field: "cpu.model",
			Message: "choose a model folder for the CPU or the NPU — a Qwen3-0.6B ONNX export with config.json, tokenizer.json and onnx/model.onnx"})
	}
	msgs := map[string]string{}
	var other []string
	for _, e := range errs {
		if _, ok := vm.Errors[e.Field]; ok {
			if msgs[e.Field] == "" {
				msgs[e.Field] = e.Message
			}
		} else {
			other = append(other, e.Error())
		}
	}
	for _, k := range settingKeys {
		_ = vm.Errors[k].Set(msgs[k])
	}
	if len(errs) > 0 {
		sort.Strings(other)
		msg := fmt.Sprintf("Fix %s marked in red, then Save.", plural(len(errs)-len(other), "field"))
		if len(other) > 0 {
			msg = strings.Join(other, "\n")
		}
		vm.setSummary(SummaryError, msg)
		return false
	}
	vm.setSummary(SummaryError, "")
	return true
}

// Kinds of the settings summary, for how it is shown.
const (
	SummaryError = iota
	SummarySuccess
	SummaryWarning
)

// setSummary shows msg as the given kind (the kind first: a view that listens to the text
// then sees the right kind).
func (vm *SettingsVM) setSummary(level int, msg string) {
	_ = vm.SummaryLevel.Set(level)
	_ = vm.Summary.Set(msg)
}

// Save validates and writes the settings.
func (vm *SettingsVM) Save() error {
	if !vm.Validate() {
		return fmt.Errorf("%s", get[string](vm.Summary))
	}
	s, _ := vm.Collect()
	if err := vm.store.Save(s); err != nil {
		err = fmt.Errorf("could not save the settings: %w — check that the settings folder is writable", err)
		vm.setSummary(SummaryError, err.Error())
		return err
	}
	vm.base = s
	vm.shown = vm.values()
	vm.setSummary(SummarySuccess, "Saved.")
	vm.FindOCR() // its path may have changed
	if vm.OnSaved != nil {
		vm.OnSaved(s)
	}
	return nil
}

// Test loads the model of route ("npu" or "cpu") in the background and shows its summary.
func (vm *SettingsVM) Test(route string) {
	s, _ := vm.Collect()
	r := s.CPU
	if route == "npu" {
		r = s.NPU
	}
	_ = vm.Tested.Set(route)
	if err := config.CheckModelPath(r.Model); err != nil {
		_ = vm.Result.Set(strings.ToUpper(route) + ": " + err.Error())
		return
	}
	if vm.tester == nil {
		_ = vm.Result.Set("Testing is not available in this build.")
		return
	}
	if vm.cancel != nil {
		vm.cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	vm.cancel = cancel
	_ = vm.Testing.Set(true)
	_ = vm.Result.Set(fmt.Sprintf("Loading %s on the %s…", r.Model, strings.ToUpper(route)))
	go func() {
		defer cancel()
		out, err := vm.tester.Test(ctx, r, s.ORTLibrary)
		if err != nil {
			out = fmt.Sprintf("%s test failed: %v", strings.ToUpper(route), err)
		}
		_ = vm.Result.Set(out)
		_ = vm.Testing.Set(false)
	}()
}

func parseOptions(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == ';' }) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return m, fmt.Errorf("%q is not key=value — write options as key=value, separated by commas", part)
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return m, nil
}
