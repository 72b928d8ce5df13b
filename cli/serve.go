package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"edgechat/documents/embedmodel"
	"edgechat/inference"
	"edgechat/models"
	"edgechat/server"
)

func init() {
	register(Command{Name: "serve", Summary: "serve an OpenAI-compatible API (loopback only by default)", Run: runServe})
}

// shutdownGrace is how long replies in progress may take to finish after Ctrl+C.
const shutdownGrace = 30 * time.Second

type serveFlags struct {
	modelFlags
	addr, apiKey, name, origins string
	queue                       int
	embeddingModel              string
}

func runServe(env Env) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, env, nil)
}

// serve runs the server until ctx ends; ready, when set, gets the address it listens on.
func serve(ctx context.Context, env Env, ready func(addr string)) error {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	f.register(fs)
	f.registerPower(fs)
	fs.StringVar(&f.addr, "addr", server.DefaultAddr, "address to listen on (0.0.0.0:PORT opens it to the network)")
	fs.StringVar(&f.apiKey, "api-key", os.Getenv("EDGECHAT_API_KEY"), "require this key as \"Authorization: Bearer KEY\" (default $EDGECHAT_API_KEY)")
	fs.StringVar(&f.name, "model-name", "", "model id the API reports (default: the model folder's name)")
	fs.StringVar(&f.origins, "allow-origins", "", "comma-separated browser origins allowed to call the API (CORS), or *")
	fs.IntVar(&f.queue, "queue", server.DefaultQueueSize, "requests that may wait while one is generated; more get 429")
	fs.StringVar(&f.embeddingModel, "embedding-model", "", "the text-embedding model folder /v1/embeddings uses (a BERT-family sentence-transformers export such as all-MiniLM or bge, or a Qwen3-Embedding export), or off (default: the settings' embedding_model, else one found on this PC; opened on the first request)")
	if err := fs.Parse(env.Args); err != nil {
		return errUsage
	}
	cfg, err := f.engineConfig()
	if err != nil {
		return err
	}
	cfg.Preload = true
	var statusMu sync.Mutex
	cfg.PreloadStatus = func(route, text string) { // the first load's preparation takes a while
		statusMu.Lock()
		defer statusMu.Unlock()
		fmt.Fprintf(env.Stderr, "[status] %s\n", text)
	}
	eng, err := inference.New(cfg)
	if err != nil {
		return err
	}
	defer eng.Close()
	opt := server.Options{Addr: f.addr, APIKey: f.apiKey, ModelName: f.name, QueueSize: f.queue, AllowedOrigins: splitList(f.origins)}
	embeddings, closeEmbeddings, err := f.embeddings(env)
	if err != nil {
		return err
	}
	defer closeEmbeddings()
	opt.Embeddings = embeddings
	if f.queue == 0 {
		opt.QueueSize = -1 // --queue 0: no waiting
	}
	if opt.ModelName == "" {
		opt.ModelName = modelName(cmp.Or(f.model, f.cpuModel, f.npuModel))
	}
	srv := server.New(eng, opt)
	addr, err := srv.Start()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "serving %s at http://%s/v1 (POST /v1/chat/completions); Ctrl+C stops\n", opt.ModelName, addr)
	if ready != nil {
		ready(addr)
	}
	<-ctx.Done()
	fmt.Fprintln(env.Stderr, "shutting down: finishing replies in progress…")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down: %w (replies in progress were cut off)", err)
	}
	return nil
}

// embeddings returns what opens the embedding model of /v1/embeddings on its first request:
// --embedding-model, else the settings' embedding_model, else one found on this PC; nil for
// off.
func (f *serveFlags) embeddings(env Env) (open func() (server.Embedder, string, error), closeIt func(), err error) {
	s, err := settingsFor(env, "")
	if err != nil {
		return nil, nil, err
	}
	if f.ortLib != "" {
		s.ORTLibrary = f.ortLib
	}
	setting := cmp.Or(f.embeddingModel, s.EmbeddingModel)
	opener := embedmodel.Opener(s, setting)
	if opener == nil {
		return nil, func() {}, nil
	}
	var (
		mu     sync.Mutex
		opened server.Embedder
		name   string
	)
	closeIt = func() {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := opened.(io.Closer); ok {
			c.Close()
		}
	}
	return func() (server.Embedder, string, error) {
		mu.Lock()
		defer mu.Unlock()
		if opened != nil {
			return opened, name, nil
		}
		e, err := opener()
		if err != nil || e == nil {
			return nil, "", err // tried again on the next request: the folder may be fixed
		}
		se, ok := e.(server.Embedder)
		if !ok {
			return nil, "", fmt.Errorf("the embedding model %s cannot count its tokens", e.Identity())
		}
		if r, ok := e.(textEmbedder); ok {
			se = rawEmbedder{se, r} // the API's clients add the prompts they want
		}
		opened, name = se, modelName(setting)
		if n, ok := e.(interface{ ModelName() string }); ok && n.ModelName() != "" {
			name = n.ModelName()
		}
		return opened, name, nil
	}, closeIt, nil
}

// textEmbedder embeds texts without the prompts it puts before documents' passages.
type textEmbedder interface {
	EmbedTexts(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error)
}

// rawEmbedder serves /v1/embeddings with a model's EmbedTexts.
type rawEmbedder struct {
	server.Embedder
	raw textEmbedder
}

// Close closes the model.
func (r rawEmbedder) Close() error {
	if c, ok := r.Embedder.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

func (r rawEmbedder) EmbedPassages(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error) {
	return r.raw.EmbedTexts(ctx, texts, progress)
}

// modelName names a model by its folder, or by its repository for a commit folder (see
// models.DisplayName).
func modelName(path string) string { return models.DisplayName(path) }

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
