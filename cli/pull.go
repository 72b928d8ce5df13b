package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"edgechat/config"
	"edgechat/models/hub"
)

func init() {
	register(Command{Name: "pull", Summary: "download a model from the Hugging Face Hub: pull ORG/NAME[@REVISION] [--variant q4]", Run: runPull})
}

// globs collects repeated --include flags.
type globs []string

func (g *globs) String() string     { return strings.Join(*g, ",") }
func (g *globs) Set(v string) error { *g = append(*g, v); return nil }

func runPull(env Env) error {
	fs := flag.NewFlagSet("pull", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: edgechat pull ORG/NAME[@REVISION] [flags]")
		fs.PrintDefaults()
	}
	cfg := fs.String("config", "", "settings file with the models folder and token (default "+config.DefaultFile()+")")
	variant := fs.String("variant", "", "which ONNX variant: q4, q4f16, int8, fp16, fp32, … or a sub-folder of a genai repository (default: best for this PC)")
	var include globs
	fs.Var(&include, "include", "also download files matching this glob (repeatable)")
	dir := fs.String("models-dir", "", "folder to download into (default: the settings' models folder)")
	npu := fs.Bool("npu", runtime.GOOS == "windows" && runtime.GOARCH == "arm64", "prefer the repository's NPU build")
	asJSON := fs.Bool("json", false, "print progress as JSON lines; the last line is the result")
	// Flags may come before or after ORG/NAME.
	args := env.Args
	var ref string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		ref, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if ref == "" && fs.NArg() > 0 {
		ref = fs.Arg(0)
	}
	if ref == "" || fs.NArg() > 1 || (fs.NArg() == 1 && ref != fs.Arg(0)) {
		fs.Usage()
		return errUsage
	}
	s, err := settingsFor(env, *cfg)
	if err != nil {
		return err
	}
	if *dir != "" {
		s.ModelsDir = *dir
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	go func() {
		if _, ok := <-sig; ok {
			cancel(hub.ErrPaused) // keep what arrived: the same command continues
		}
	}()
	out := progressPrinter(env, *asJSON)
	res, err := hub.NewClient(s.HFToken).Pull(ctx, hub.Request{Ref: ref, Variant: *variant, Include: include, ModelsDir: s.ModelsFolder(), NPU: *npu}, hub.Options{Progress: out, ProgressEvery: 500 * time.Millisecond})
	if errors.Is(err, hub.ErrPaused) {
		return fmt.Errorf("paused: run the same command again to continue where it stopped")
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(env.Stdout).Encode(res)
	}
	fmt.Fprintf(env.Stdout, "Downloaded %s (variant %s, commit %.12s, %s) to\n  %s\n", res.Repo, res.Variant, res.Commit, hub.Bytes(res.Bytes), res.Path)
	if res.Problem != "" {
		fmt.Fprintf(env.Stdout, "EdgeChat cannot use it as it is: %s\n", res.Problem)
	} else {
		fmt.Fprintf(env.Stdout, "Try it: edgechat generate --model %q --prompt \"Hello\"\n", res.Path)
	}
	return nil
}

// progressLine is one --json progress line.
type progressLine struct {
	hub.Progress
	ETASeconds     float64 `json:"eta_seconds"`
	FileETASeconds float64 `json:"file_eta_seconds"`
}

// progressPrinter prints progress: JSON lines to stdout, or a line a second to stderr.
func progressPrinter(env Env, asJSON bool) func(hub.Progress) {
	enc := json.NewEncoder(env.Stdout)
	var last time.Time
	var lastState string
	return func(p hub.Progress) {
		if asJSON {
			_ = enc.Encode(progressLine{p, p.ETA.Seconds(), p.FileETA.Seconds()})
			return
		}
		if p.State == lastState && time.Since(last) < time.Second {
			return
		}
		last, lastState = time.Now(), p.State
		switch p.State {
		case "waiting":
			fmt.Fprintf(env.Stderr, "waiting for another download of %s to finish…\n", p.Repo)
		case "downloading":
			line := fmt.Sprintf("%s of %s", hub.Bytes(p.Done), hub.Bytes(p.Total))
			if p.File != "" {
				line = p.File + "  " + line
			}
			if p.Speed > 0 {
				line += fmt.Sprintf("  %s/s  %s left", hub.Bytes(int64(p.Speed)), p.ETA.Round(time.Second))
			}
			fmt.Fprintln(env.Stderr, line)
		}
	}
}
