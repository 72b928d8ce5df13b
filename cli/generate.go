package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"edgechat/inference/routes"
	"edgechat/reply"

	"edgechat/documents"
	"edgechat/documents/embedmodel"
	"edgechat/inference"
	"edgechat/internal/eps"
	"edgechat/internal/paths"
)

func init() {
	register(Command{Name: "generate", Summary: "generate a reply from a model on the command line", Run: runGenerate})
}

// modelFlags are the model and route flags shared by generate, serve and bench.
type modelFlags struct {
	model, modelFile, ortLib, ep string
	threads, maxContext          int
	npuModel, cpuModel, npuEP    string
	prefillLimit                 int
	asPublished                  bool
	kvInt8, promptInt8           bool
	kvCache, power               string
}

// graphCache is where optimized graph copies go, or "" with --as-published.
func (m *modelFlags) graphCache() string {
	if m.asPublished {
		return ""
	}
	return paths.GraphCacheDir()
}

func (m *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.model, "model", "", "model folder (or .onnx file inside one)")
	fs.StringVar(&m.modelFile, "model-file", "", "ONNX file to use inside a Hugging Face folder's onnx/ (default: best for the CPU)")
	fs.StringVar(&m.ortLib, "ort-lib", "", "ONNX Runtime shared library (default: $EDGECHAT_ORT_LIB, next to edgechat, or the cache)")
	fs.StringVar(&m.ep, "ep", "cpu", "execution provider: cpu, qnn, dml or webgpu")
	fs.IntVar(&m.threads, "threads", 0, "CPU intra-op threads (0 = physical cores)")
	fs.BoolVar(&m.asPublished, "as-published", false, "run the model's graph file as it is, not the optimized copy in the cache (accuracy_level 4, LM head on the last row)")
	fs.StringVar(&m.kvCache, "kv-cache", "auto", "the KV cache (Settings → KV cache): auto (8 bits with a scale per row where EdgeChat's attention kernels run, else 32), 32 (exact) or 8 (8 bits wherever the model allows, calibrated per channel where the kernels do not run); 8-bit is faster and smaller, its logits slightly different")
	fs.BoolVar(&m.kvInt8, "kv-int8", false, "the same as --kv-cache 8")
	fs.BoolVar(&m.promptInt8, "prompt-int8", false, "run the CPU route's prompts on an 8-bit twin of the graph (Settings → Prompts): first token sooner (~10% where EdgeChat's product kernel runs, about twice as soon elsewhere), slightly different logits, ~0.45 GB more memory")
	fs.IntVar(&m.maxContext, "max-context", 0, "context length cap in tokens (0 = model's, at most 8192)")
	fs.StringVar(&m.npuModel, "npu-model", "", "model for the NPU route (e.g. a static-shape or decoder-pipeline build)")
	fs.StringVar(&m.cpuModel, "cpu-model", "", "model for the CPU route (default: --model)")
	fs.StringVar(&m.npuEP, "npu-ep", "qnn", "execution provider of the NPU route: qnn, dml, webgpu or cpu")
	fs.IntVar(&m.prefillLimit, "prefill-limit", 0, "longest prompt (tokens) the NPU route takes; longer ones go to the CPU (0 = NPU context minus the reply budget)")
}

// registerPower adds --power (generate and serve; bench measures at full speed).
func (m *modelFlags) registerPower(fs *flag.FlagSet) {
	fs.StringVar(&m.power, "power", eps.PowerAuto, "power mode: auto (battery saver — half the threads, no spin-waiting, QNN "+eps.SaverHTPMode+
		" — on battery or with the energy saver on), performance or saver")
}

// engineConfig builds the routes: --npu-model and --cpu-model make a hybrid engine (NPU first,
// CPU as fallback); --model alone is one route on --ep (an NPU route for an NPU provider).
func (m *modelFlags) engineConfig() (inference.Config, error) {
	kv, err := m.kvMode()
	if err != nil {
		return inference.Config{}, err
	}
	local := func(model, ep string) *routes.Local {
		return &routes.Local{Model: model, ModelFile: m.modelFile, MaxContext: m.maxContext, EP: ep, Threads: m.threads, KVCache: kv}
	}
	if m.power != "" && !slices.Contains(eps.PowerModes, m.power) {
		return inference.Config{}, fmt.Errorf("--power %s: choose one of %s", m.power, strings.Join(eps.PowerModes, ", "))
	}
	spec := routes.Spec{ORTLibrary: m.ortLib, PrefillLimit: m.prefillLimit, GraphCache: m.graphCache(), PowerMode: m.power}
	cpu := m.cpuModel
	if cpu == "" {
		cpu = m.model
	}
	switch {
	case m.npuModel != "":
		spec.NPU = local(m.npuModel, m.npuEP)
		if cpu != "" {
			spec.CPU = local(cpu, "cpu")
		}
	case cpu == "":
		return inference.Config{}, errors.New("--model is required: the folder that holds your model")
	case m.cpuModel == "" && routeName(m.ep) == "npu":
		spec.NPU = local(cpu, m.ep)
	default:
		spec.CPU = local(cpu, "cpu")
	}
	if spec.CPU != nil {
		spec.CPU.PromptInt8 = m.promptInt8
	}
	return routes.Build(spec), nil
}

// kvMode is the KV cache --kv-cache and --kv-int8 ask for ("" is auto: flags not registered).
func (m *modelFlags) kvMode() (inference.KVCache, error) {
	kv := inference.KVAuto
	if m.kvCache != "" {
		var err error
		if kv, err = inference.ParseKVCache(m.kvCache); err != nil {
			return kv, fmt.Errorf("--kv-cache %s: choose auto, 32 or 8", m.kvCache)
		}
	}
	if m.kvInt8 {
		if kv == inference.KV32 {
			return kv, errors.New("--kv-int8 asks for the 8-bit KV cache, --kv-cache 32 for the 32-bit one: give one of them")
		}
		kv = inference.KV8
	}
	return kv, nil
}

// primaryModel is the model whose template renders --print-prompt.
func (m *modelFlags) primaryModel() string {
	for _, p := range []string{m.npuModel, m.cpuModel, m.model} {
		if p != "" {
			return p
		}
	}
	return ""
}

func routeName(ep string) string {
	if ep == "" || ep == "cpu" {
		return "cpu"
	}
	return "npu"
}

// optionalFloat is a float flag that remembers whether it was set.
type optionalFloat struct{ v *float64 }

func (o *optionalFloat) String() string {
	if o.v == nil {
		return ""
	}
	return fmt.Sprint(*o.v)
}

func (o *optionalFloat) Set(s string) error {
	var f float64
	if _, err := fmt.Sscan(s, &f); err != nil {
		return fmt.Errorf("%q is not a number", s)
	}
	o.v = &f
	return nil
}

type optionalInt struct{ v *int64 }

func (o *optionalInt) String() string {
	if o.v == nil {
		return ""
	}
	return fmt.Sprint(*o.v)
}

func (o *optionalInt) Set(s string) error {
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		return fmt.Errorf("%q is not a whole number", s)
	}
	o.v = &n
	return nil
}

type generateFlags struct {
	modelFlags
	prompt, messages, system string
	maxTokens                int
	temperature, topP, minP  optionalFloat
	repPenalty               optionalFloat
	topK, seed               optionalInt
	think, noThink           bool
	printPrompt, asJSON      bool
	raw, noLookup            bool
	attach                   fileList
	embeddingModel           string
	rerankerModel            string
	toolFlags
}

// fileList is a flag that may be repeated.
type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(s string) error { *f = append(*f, s); return nil }

func runGenerate(env Env) error {
	var g generateFlags
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	g.register(fs)
	g.registerPower(fs)
	fs.StringVar(&g.prompt, "prompt", "", "the user message (with --raw: the text to continue)")
	fs.BoolVar(&g.raw, "raw", false, "plain completion for base models: continue --prompt as given, no chat template, roles or system prompt")
	fs.StringVar(&g.messages, "messages", "", "JSON file with the conversation: [{\"role\":\"user\",\"content\":\"…\"}, …]")
	fs.StringVar(&g.system, "system", "", "system prompt")
	fs.IntVar(&g.maxTokens, "max-tokens", 0, "most tokens in the reply (default 2048)")
	fs.Var(&g.temperature, "temperature", "sampling temperature (0 = greedy; default: the model's)")
	fs.Var(&g.topP, "top-p", "nucleus sampling threshold (default: the model's)")
	fs.Var(&g.minP, "min-p", "min-p threshold (default: the model's)")
	fs.Var(&g.repPenalty, "repetition-penalty", "repetition penalty (default: the model's)")
	fs.Var(&g.topK, "top-k", "top-k (default: the model's)")
	fs.Var(&g.seed, "seed", "random seed (same seed, same reply)")
	fs.BoolVar(&g.think, "think", true, "let Qwen3 reason before answering")
	fs.BoolVar(&g.noThink, "no-think", false, "answer without reasoning")
	fs.BoolVar(&g.printPrompt, "print-prompt", false, "print the rendered prompt and exit")
	fs.BoolVar(&g.asJSON, "json", false, "print one JSON object per event per line")
	fs.BoolVar(&g.noLookup, "no-lookup", false, "decode one token per run: no prompt-lookup drafts (the reply is the same, only slower where it repeats its prompt)")
	fs.Var(&g.attach, "attach", "a document to ask about: text, Markdown, code, PDF, DOCX, XLSX, PPTX, ODT, EPUB, RTF or HTML (repeat for more)")
	fs.StringVar(&g.embeddingModel, "embedding-model", "", "with --attach: the text-embedding model folder that ranks passages by meaning as well, or off (default: the settings' embedding_model, else one found on this PC)")
	fs.StringVar(&g.rerankerModel, "reranker-model", "", "with --attach: the cross-encoder reranker folder that re-orders the best passages, or off (default: the settings' reranker_model, else one found on this PC)")
	g.registerTools(fs.StringVar)
	if err := fs.Parse(env.Args); err != nil {
		return errUsage
	}
	if err := g.checkTools(g.raw); err != nil {
		return err
	}
	thinking := g.think && !g.noThink
	req := reply.Request{Thinking: thinking, MaxTokens: g.maxTokens, Sampling: g.sampling(), NoLookup: g.noLookup}
	var msgs []reply.Message
	if g.raw {
		p, err := g.rawPrompt()
		if err != nil {
			return err
		}
		req.Prompt = p
	} else {
		var err error
		if msgs, err = g.conversation(); err != nil {
			return err
		}
		req.Messages = msgs
	}
	docs, err := g.documents(env)
	if err != nil {
		return err
	}
	if docs.Library != nil {
		defer docs.Library.Close()
	}
	if g.printPrompt {
		if g.primaryModel() == "" {
			return errors.New("--model is required")
		}
		if g.raw { // the prompt is the text itself
			_, err = io.WriteString(env.Stdout, g.prompt)
			return err
		}
		if len(g.attach) > 0 {
			req.Attachments = attachments(g.attach)
			p, err := docs.Prepare(context.Background(), req, nil)
			if err != nil {
				return err
			}
			for _, msg := range p.Problems {
				fmt.Fprintf(env.Stderr, "[notice] %s\n", msg)
			}
			if p.Ranking != "" {
				fmt.Fprintf(env.Stderr, "[status] %s\n", p.Ranking)
			}
			msgs = p.Request.Messages
		}
		text, err := inference.RenderPrompt(g.primaryModel(), g.modelFile, msgs, thinking)
		if err != nil {
			return err
		}
		_, err = io.WriteString(env.Stdout, text)
		return err
	}
	cfg, err := g.engineConfig()
	if err != nil {
		return err
	}
	cfg.OneShot = true
	eng, err := inference.New(cfg)
	if err != nil {
		return err
	}
	defer eng.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if g.maxTokens < 0 {
		return fmt.Errorf("--max-tokens %d is negative: give a number of tokens, or leave it out for the default", g.maxTokens)
	}
	// A --max-tokens over the model's context is refused with the numbers, not cut silently.
	req.StrictMaxTokens = true
	docs.Next = eng
	req.Attachments = attachments(g.attach)
	if g.mcpConfig != "" {
		return g.runTools(ctx, env, docs, req)
	}
	events, err := docs.Generate(ctx, req)
	if err != nil {
		return err
	}
	return printEvents(ctx, env, events, g.asJSON)
}

// documents returns the engine that puts --attach files into the prompt, budgeted for the
// primary model, with the embedding model --embedding-model or the settings name (or one
// found on this PC).
func (g *generateFlags) documents(env Env) (*documents.Engine, error) {
	e := &documents.Engine{}
	if len(g.attach) == 0 {
		return e, nil
	}
	if g.primaryModel() == "" {
		return nil, errors.New("--model is required")
	}
	b, err := documents.ModelBudget(g.primaryModel(), g.modelFile, g.maxContext)
	if err != nil {
		return nil, fmt.Errorf("--attach needs the model's tokenizer: %w", err)
	}
	e.Budget = func() documents.Budget { return b }
	s, err := settingsFor(env, "")
	if err != nil {
		return nil, err
	}
	if g.ortLib != "" {
		s.ORTLibrary = g.ortLib
	}
	setting := g.embeddingModel
	if setting == "" {
		setting = s.EmbeddingModel
	}
	e.Library = documents.NewLibrary()
	e.Library.SetEmbedder(embedmodel.Opener(s, setting))
	e.Library.SetReranker(embedmodel.RerankOpener(s, cmp.Or(g.rerankerModel, s.RerankerModel)))
	return e, nil
}

// attachments are --attach files, read in place (nothing is kept between runs).
func attachments(paths []string) []reply.Attachment {
	var out []reply.Attachment
	for _, p := range paths {
		out = append(out, reply.Attachment{Name: filepath.Base(p), Path: p})
	}
	return out
}

func (g *generateFlags) sampling() reply.Sampling {
	s := reply.Sampling{Temperature: g.temperature.v, TopP: g.topP.v, MinP: g.minP.v, RepetitionPenalty: g.repPenalty.v, Seed: g.seed.v}
	if g.topK.v != nil {
		k := int(*g.topK.v)
		s.TopK = &k
	}
	return s
}

// rawPrompt is --raw's prompt: --prompt alone, for plain completion.
func (g *generateFlags) rawPrompt() (*reply.Prompt, error) {
	switch {
	case g.messages != "":
		return nil, errors.New("--raw continues the text of --prompt; it takes no --messages (a conversation needs a chat template)")
	case g.system != "":
		return nil, errors.New("--raw continues the text of --prompt as given; it takes no --system prompt")
	case len(g.attach) > 0:
		return nil, errors.New("--raw continues the text of --prompt as given; it takes no --attach")
	case g.prompt == "":
		return nil, errors.New("give the text to continue with --prompt TEXT")
	}
	return &reply.Prompt{Text: g.prompt}, nil
}

// conversation builds the messages from --messages or --system/--prompt.
func (g *generateFlags) conversation() ([]reply.Message, error) {
	var msgs []reply.Message
	switch {
	case g.messages != "" && g.prompt != "":
		return nil, errors.New("give --prompt or --messages, not both")
	case g.messages != "":
		b, err := os.ReadFile(g.messages)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &msgs); err != nil {
			return nil, fmt.Errorf("%s: expected a JSON array of {\"role\",\"content\"} objects: %v", g.messages, err)
		}
	case g.prompt != "":
		msgs = []reply.Message{{Role: "user", Content: g.prompt}}
	default:
		return nil, errors.New("give the user message with --prompt TEXT or a conversation with --messages FILE.json")
	}
	if g.system != "" {
		msgs = append([]reply.Message{{Role: "system", Content: g.system}}, msgs...)
	}
	return msgs, nil
}

// jsonEvent is one line of --json output: the event's type and text, and for the last one
// the summary's fields beside them.
type jsonEvent struct {
	Type    string
	Text    string
	Summary *reply.Summary
	Tool    *reply.ToolCallPart
	Runs    []toolRun // the final event of generate --mcp-config: every tool call made
	// Progress is a status event's progress of a first load ({"step":"verifying","fraction":0.45}).
	Progress *reply.Progress
}

func (e jsonEvent) MarshalJSON() ([]byte, error) {
	fields := map[string]any{}
	if e.Summary != nil {
		b, err := json.Marshal(e.Summary)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &fields); err != nil {
			return nil, err
		}
	}
	fields["type"] = e.Type
	if e.Tool != nil {
		fields["tool_call"] = e.Tool
	}
	if e.Runs != nil {
		fields["tool_calls"] = e.Runs
	}
	if e.Progress != nil {
		fields["progress"] = e.Progress
	}
	if e.Text != "" {
		fields["text"] = e.Text
	}
	return json.Marshal(fields)
}

var eventTypes = map[reply.EventKind]string{
	reply.EventText: "text", reply.EventThinking: "thinking", reply.EventNotice: "notice",
	reply.EventStatus: "status", reply.EventDone: "done", reply.EventToolCall: "tool_call_delta",
}

// printEvents writes the stream: plain text as it comes, or one JSON object per event.
func printEvents(ctx context.Context, env Env, events <-chan reply.Event, asJSON bool) error {
	r := printStream(ctx, env, events, asJSON, nil)
	if r.final.FinishReason == reply.FinishError {
		return r.final.Err
	}
	return nil
}

// printed is what printStream saw of one reply.
type printed struct {
	final          *reply.Summary
	text, thinking string
	calls          []reply.ToolCall
}

// printStream writes one reply's events and returns the reply. With runs (generate
// --mcp-config), the final JSON event (the one that called no tool) lists the tool calls of
// all rounds.
func printStream(ctx context.Context, env Env, events <-chan reply.Event, asJSON bool, runs *[]toolRun) printed {
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	var final *reply.Summary
	var text, thinking strings.Builder
	var calls reply.ToolCalls
	var broken error
	inThinking := false
	for ev := range events {
		switch ev.Kind {
		case reply.EventText:
			text.WriteString(ev.Text)
		case reply.EventThinking:
			thinking.WriteString(ev.Text)
		case reply.EventToolCall:
			if ev.Tool != nil && broken == nil {
				broken = calls.Add(*ev.Tool)
			}
		}
		if asJSON {
			je := jsonEvent{Type: eventTypes[ev.Kind], Text: ev.Text, Summary: ev.Done, Tool: ev.Tool, Progress: ev.Progress}
			if runs != nil && ev.Done != nil && ev.Done.FinishReason != reply.FinishToolCalls {
				je.Runs = *runs
				if je.Runs == nil {
					je.Runs = []toolRun{}
				}
			}
			if err := enc.Encode(je); err != nil {
				return printed{final: &reply.Summary{FinishReason: reply.FinishError, Err: err}}
			}
		} else {
			switch ev.Kind {
			case reply.EventThinking:
				if !inThinking {
					fmt.Fprint(env.Stderr, "[thinking] ")
					inThinking = true
				}
				fmt.Fprint(env.Stderr, ev.Text)
			case reply.EventText:
				if inThinking {
					fmt.Fprintln(env.Stderr)
					inThinking = false
				}
				fmt.Fprint(env.Stdout, ev.Text)
			case reply.EventNotice, reply.EventStatus:
				fmt.Fprintf(env.Stderr, "[%s] %s\n", eventTypes[ev.Kind], ev.Text)
			}
		}
		if ev.Kind == reply.EventDone {
			final = ev.Done
		}
	}
	if broken != nil {
		final = &reply.Summary{FinishReason: reply.FinishError, Err: fmt.Errorf("%w: %v", reply.ErrBrokenToolCall, broken)}
	}
	final = reply.Ended(ctx, final)
	// A reply that failed before its first token (a bad --model) has no statistics: the
	// error alone is printed, by the caller.
	failedEarly := final.FinishReason == reply.FinishError && final.GeneratedTokens == 0
	if !asJSON && !failedEarly {
		fmt.Fprintln(env.Stdout)
		fmt.Fprintf(env.Stderr, "[%s] %d prompt + %d generated tokens (%d reused), TTFT %.0f ms, %.1f tokens/s, backend %s (%s)\n",
			final.FinishReason, final.PromptTokens, final.GeneratedTokens, final.ReusedTokens, final.TTFTMillis(), final.DecodeTPS, final.Backend, final.Device)
		if l := final.Lookup; l != nil && l.Drafted > 0 {
			fmt.Fprintf(env.Stderr, "[lookup] %d of %d drafted tokens kept (%.0f%%), %d decoder runs for %d tokens\n",
				l.Accepted, l.Drafted, 100*l.AcceptanceRate(), l.Runs, final.GeneratedTokens)
		}
	}
	if !asJSON {
		for _, r := range []string{final.FallbackReason, final.RouteReason} {
			if r != "" {
				fmt.Fprintf(env.Stderr, "[route] %s\n", r)
			}
		}
		for i, s := range final.Sources {
			fmt.Fprintf(env.Stderr, "[source %d] %s\n", i+1, s.Label())
		}
	}
	return printed{final: final, text: text.String(), thinking: thinking.String(), calls: calls.Calls()}
}
