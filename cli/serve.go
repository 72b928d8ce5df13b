package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"edgechat/inference"
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
	fs.StringVar(&f.addr, "addr", server.DefaultAddr, "address to listen on (0.0.0.0:PORT opens it to the network)")
	fs.StringVar(&f.apiKey, "api-key", os.Getenv("EDGECHAT_API_KEY"), "require this key as \"Authorization: Bearer KEY\" (default $EDGECHAT_API_KEY)")
	fs.StringVar(&f.name, "model-name", "", "model id the API reports (default: the model folder's name)")
	fs.StringVar(&f.origins, "allow-origins", "", "comma-separated browser origins allowed to call the API (CORS), or *")
	fs.IntVar(&f.queue, "queue", server.DefaultQueueSize, "requests that may wait while one is generated; more get 429")
	if err := fs.Parse(env.Args); err != nil {
		return errUsage
	}
	cfg, err := f.engineConfig()
	if err != nil {
		return err
	}
	cfg.Preload = true
	eng, err := inference.New(cfg)
	if err != nil {
		return err
	}
	defer eng.Close()
	opt := server.Options{Addr: f.addr, APIKey: f.apiKey, ModelName: f.name, QueueSize: f.queue, AllowedOrigins: splitList(f.origins)}
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

// modelName names a model by its folder ("qwen3-0.6b" for ~/models/qwen3-0.6b/onnx/model.onnx).
func modelName(path string) string {
	p := filepath.Clean(path)
	if strings.HasSuffix(strings.ToLower(p), ".onnx") {
		p = filepath.Dir(p)
	}
	if filepath.Base(p) == "onnx" {
		p = filepath.Dir(p)
	}
	return filepath.Base(p)
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
