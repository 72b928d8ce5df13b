// Package config owns EdgeChat's settings: the typed Settings struct, the YAML file they are
// saved to, EDGECHAT_* environment overrides and the checks the settings pane shows inline.
// It is the only package that imports viper; everything else receives a Settings value.
//
// Keys are the lower-case, dot-separated paths of the YAML file ("cpu.model", "temperature",
// "server.addr"). The environment variable for a key is EDGECHAT_ followed by the key in upper
// case with dots replaced by underscores (EDGECHAT_CPU_MODEL, EDGECHAT_TEMPERATURE); see EnvName.
// The same keys name fields in FieldError and in Store.Overridden.
package config

import (
	"edgechat/internal/eps"
	"os"
	"path/filepath"
	"strings"
)

// Route says how to run one model: which files and which ONNX Runtime execution provider.
type Route struct {
	Model     string            `mapstructure:"model"`      // model folder (or .onnx file)
	ModelFile string            `mapstructure:"model_file"` // variant inside onnx/ for Hugging Face layouts ("" = best available)
	EP        string            `mapstructure:"ep"`         // "cpu", "qnn", "dml", "webgpu"
	EPOptions map[string]string `mapstructure:"ep_options"` // e.g. backend_path, htp_performance_mode; device_id for dml
	Threads   int               `mapstructure:"threads"`    // CPU intra-op threads, 0 = physical cores
}

// Remote is an optional OpenAI-compatible server used instead of (or beside) the local model.
type Remote struct {
	BaseURL           string `mapstructure:"base_url"`
	Model             string `mapstructure:"model"`
	APIKey            string `mapstructure:"api_key"`
	UseForLongPrompts bool   `mapstructure:"use_for_long_prompts"`
}

// Power says how local models follow the machine's power. Mode "auto" runs them in battery
// saver — half the CPU threads, no spin-waiting, QNN at SaverHTPMode — on battery or with
// the energy saver on, and at full speed on AC power; "performance" and "saver" pin a mode.
type Power struct {
	Mode         string `mapstructure:"mode"`           // "auto", "performance", "saver"
	SaverHTPMode string `mapstructure:"saver_htp_mode"` // QNN's htp_performance_mode in battery saver
}

// Server is EdgeChat's own OpenAI-compatible HTTP endpoint.
type Server struct {
	Enabled bool   `mapstructure:"enabled"`
	Addr    string `mapstructure:"addr"`
	APIKey  string `mapstructure:"api_key"`
}

// OCR is text recognition of scanned PDFs with the tesseract program, off by default.
type OCR struct {
	// Enabled reads a scanned PDF (pages of images, no text) with tesseract when it is
	// attached.
	Enabled bool `mapstructure:"enabled"`
	// Tesseract is the program ("" = the one on PATH, on Windows also
	// C:\Program Files\Tesseract-OCR).
	Tesseract string `mapstructure:"tesseract"`
	// Languages are tesseract's language codes joined by "+" ("" = "eng").
	Languages string `mapstructure:"languages"`
}

// Settings is everything the user can configure. The zero value is not useful; start from
// Defaults or Store.Settings.
type Settings struct {
	NPU               Route   `mapstructure:"npu"`
	CPU               Route   `mapstructure:"cpu"`
	Remote            Remote  `mapstructure:"remote"`
	ORTLibrary        string  `mapstructure:"ort_library"`   // "" = search (env, next to exe, cache)
	PrefillLimit      int     `mapstructure:"prefill_limit"` // 0 = derived from the NPU model
	Temperature       float64 `mapstructure:"temperature"`
	TopP              float64 `mapstructure:"top_p"`
	TopK              int     `mapstructure:"top_k"`
	MaxTokens         int     `mapstructure:"max_tokens"`
	RepetitionPenalty float64 `mapstructure:"repetition_penalty"`
	SystemPrompt      string  `mapstructure:"system_prompt"`
	Thinking          bool    `mapstructure:"thinking"`
	// PromptLookup drafts tokens by copying earlier text and checks them in one run
	// (prompt-lookup decoding): the same replies, faster where they repeat their context.
	PromptLookup bool `mapstructure:"prompt_lookup"`
	// KVCache is how the CPU model keeps the conversation's keys and values: KVCacheAuto (the
	// default) in 8 bits with a scale per row where EdgeChat's attention kernels run the model,
	// else in 32 bits; KVCache32 in 32 bits (exact); KVCache8 in 8 bits wherever the model
	// allows (calibrated per channel where the kernels do not run). See inference.KVCache.
	KVCache string `mapstructure:"kv_cache"`
	// PromptInt8 runs the CPU model's prompts on 8-bit weights (inference.LoadOptions.PromptInt8):
	// the first word about twice as soon where EdgeChat's product kernel does not run and ~10%
	// sooner where it does, slightly different replies, ~0.45 GB more memory and disk. Off by
	// default.
	PromptInt8 bool   `mapstructure:"prompt_int8"`
	Theme      string `mapstructure:"theme"`    // "system", "light", "dark"
	DataDir    string `mapstructure:"data_dir"` // conversations; "" = DefaultDataDir()
	Server     Server `mapstructure:"server"`
	// ModelsDir receives downloaded models ("" = DefaultModelsDir()); ModelFolders lists
	// more folders to look for models in, separated by the system's list separator (";" on
	// Windows, ":" elsewhere).
	ModelsDir    string `mapstructure:"models_dir"`
	ModelFolders string `mapstructure:"model_folders"`
	// HFToken is a Hugging Face access token for gated or private models ("" = HF_TOKEN).
	HFToken string `mapstructure:"hf_token"`
	// EmbeddingModel ranks attached documents' passages by meaning: "" finds a text-embedding
	// model among the models on this PC, "off" uses none (keywords only), else its folder.
	EmbeddingModel string `mapstructure:"embedding_model"`
	// RerankerModel re-ranks the best passages with a cross-encoder (ms-marco-MiniLM,
	// bge-reranker): "" finds one among the models on this PC, "off" uses none, else its folder.
	RerankerModel string `mapstructure:"reranker_model"`
	// Power pins a power mode or follows the machine's (battery saver on battery).
	Power Power `mapstructure:"power"`
	// MCPConfig is an mcp.json naming the MCP servers whose tools the chat may call
	// ("" = none: tools are off until the user adds a server). Each call asks approval.
	MCPConfig string `mapstructure:"mcp_config"`
	// OCR reads scanned PDFs with text recognition (off by default).
	OCR OCR `mapstructure:"ocr"`
}

// EmbeddingOff is the EmbeddingModel value that turns ranking by meaning off, and the
// RerankerModel value that turns re-ranking off.
const EmbeddingOff = "off"

// The values of Settings.KVCache (inference.ParseKVCache reads them).
const (
	KVCacheAuto = "auto"
	KVCache32   = "32-bit"
	KVCache8    = "8-bit"
)

// KVCaches lists the accepted values of Settings.KVCache.
var KVCaches = []string{KVCacheAuto, KVCache32, KVCache8}

// Themes lists the accepted values of Settings.Theme.
var Themes = []string{"system", "light", "dark"}

// Defaults returns the settings used when nothing is configured.
func Defaults() Settings {
	return Settings{
		NPU: Route{
			EP:        "qnn",
			EPOptions: eps.WithDefaults("qnn", nil),
		},
		CPU:               Route{EP: "cpu", EPOptions: map[string]string{}},
		Power:             Power{Mode: eps.PowerAuto, SaverHTPMode: eps.SaverHTPMode},
		Temperature:       0.6,
		TopP:              0.95,
		TopK:              20,
		MaxTokens:         1024,
		RepetitionPenalty: 1.0,
		Thinking:          true,
		PromptLookup:      true,
		KVCache:           KVCacheAuto,
		Theme:             "system",
		Server:            Server{Addr: "127.0.0.1:8080"},
	}
}

// appDir returns os.UserConfigDir()/EdgeChat, or "" when the system has no config folder.
func appDir() string {
	dir, err := os.UserConfigDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(dir, "EdgeChat")
}

// DefaultFile returns os.UserConfigDir()/EdgeChat/settings.yaml, or "" when the system has no
// config folder (no HOME / APPDATA); pass a file with --config then.
func DefaultFile() string {
	if d := appDir(); d != "" {
		return filepath.Join(d, "settings.yaml")
	}
	return ""
}

// DefaultDataDir returns where conversations live when Settings.DataDir is empty:
// os.UserConfigDir()/EdgeChat/conversations, or "" when the system has no config folder.
func DefaultDataDir() string {
	if d := appDir(); d != "" {
		return filepath.Join(d, "conversations")
	}
	return ""
}

// ConversationsDir returns s.DataDir, or DefaultDataDir() when it is empty.
func (s Settings) ConversationsDir() string {
	if s.DataDir != "" {
		return s.DataDir
	}
	return DefaultDataDir()
}

// UserModelFolders splits ModelFolders into its folders.
func (s Settings) UserModelFolders() []string {
	var out []string
	for _, d := range filepath.SplitList(s.ModelFolders) {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// clone returns a copy of s that shares no maps with it.
func (s Settings) clone() Settings {
	s.NPU.EPOptions = cloneMap(s.NPU.EPOptions)
	s.CPU.EPOptions = cloneMap(s.CPU.EPOptions)
	return s
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
