// Command loadbench measures a model's first load (the optimized copy written and checked),
// its second load (the copy cached) and ONNX Runtime's own session creation for the same copy
// (decoder.BareSession: the same options, nothing else), in one process, by CPU time (user
// and system, all threads: what other jobs on a shared machine do not stretch) and wall time.
// Loads are the engine's (inference.LoadModel: folder, tokenizer, template, decoder); each
// round's first load goes into a fresh graph cache. The best CPU time of each is compared.
//
//	go run ./tools/loadbench --model ~/.cache/edgechat/models/qwen3-0.6b-q4-28l --rounds 3
//
// With --only, one measurement in a fresh process (see one).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"edgechat/inference"
	"edgechat/inference/ort/decoder"
	"edgechat/inference/ort/env"
	"edgechat/internal/cpuprof"
	"edgechat/internal/cputime"
	"edgechat/models"
)

var (
	model   = flag.String("model", "", "model folder")
	variant = flag.String("variant", "", "graph variant (e.g. model_q4.onnx; default: best for the CPU)")
	rounds  = flag.Int("rounds", 3, "rounds of a first load (a fresh cache), a cached load and a bare session")
	threads = flag.Int("threads", 2, "intra-op threads")
	profile = flag.String("cpuprofile", "", "write the first round's first load's CPU profile to this file (with --only: the measurement's)")
	only    = flag.String("only", "", "one measurement in a fresh process, with --cache: load (the first when the cache is empty, else cached) or bare (a bare session of the copy in the cache)")
	cacheAt = flag.String("cache", "", "the graph cache for --only")
	bareOpt = flag.String("bare-option", "", "a session option key=value for the bare sessions only (e.g. session.disable_prepacking=1)")
)

type timing struct{ cpu, wall time.Duration }

func measure(f func() error) (timing, error) {
	c, w := cputime.Used(), time.Now()
	err := f()
	return timing{cputime.Used() - c, time.Since(w)}, err
}

func (t timing) String() string {
	return fmt.Sprintf("cpu %6.2f s  wall %6.2f s", t.cpu.Seconds(), t.wall.Seconds())
}

func main() {
	flag.Parse()
	if *model == "" {
		fmt.Fprintln(os.Stderr, "loadbench: --model names the model folder")
		os.Exit(2)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

func run() error {
	if *only != "" {
		return one()
	}
	ep := inference.EP{Name: "cpu", Threads: *threads}
	bareEP := ep
	if k, v, ok := strings.Cut(*bareOpt, "="); ok {
		bareEP.Options = map[string]string{k: v}
	}
	f, err := models.Open(*model, *variant)
	if err != nil {
		return err
	}
	open := decoder.Opener("")
	var best [3]timing
	fmt.Printf("model %s\n", *model)
	for r := range *rounds {
		cache, err := os.MkdirTemp("", "loadbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(cache)
		o := inference.LoadOptions{ModelFile: *variant, EP: ep, GraphCache: cache}
		load := func() error {
			m, err := inference.LoadModel(*model, o, open)
			if err != nil {
				return err
			}
			return m.Close()
		}
		cold, err := measure(func() error {
			if r > 0 {
				return load()
			}
			return profiled(*profile, load)
		})
		if err != nil {
			return fmt.Errorf("first load: %w", err)
		}
		copies, _ := filepath.Glob(filepath.Join(cache, "optimized", "*", "*.onnx"))
		if len(copies) != 1 {
			return fmt.Errorf("%d optimized copies in the cache, want 1: %v", len(copies), copies)
		}
		warm, err := measure(load)
		if err != nil {
			return fmt.Errorf("second load: %w", err)
		}
		bare, err := measure(func() error { return decoder.BareSession(f, copies[0], bareEP) })
		if err != nil {
			return fmt.Errorf("bare session: %w", err)
		}
		fmt.Printf("round %d: first load %v | cached load %v | bare session %v\n", r+1, cold, warm, bare)
		for i, t := range []timing{cold, warm, bare} {
			if r == 0 || t.cpu < best[i].cpu {
				best[i] = t
			}
		}
	}
	fmt.Printf("best CPU: first %.2f s, cached %.2f s, bare session %.2f s → first %.2f×, cached %.2f× the bare session\n",
		best[0].cpu.Seconds(), best[1].cpu.Seconds(), best[2].cpu.Seconds(),
		best[0].cpu.Seconds()/best[2].cpu.Seconds(), best[1].cpu.Seconds()/best[2].cpu.Seconds())
	return nil
}

// one makes the measurement --only asks for, the first thing this process does with ONNX
// Runtime: a process's first session pays what later ones find ready (the allocator's pages
// among them), so a first load in a fresh process is compared with a bare session in one.
func one() error {
	if *cacheAt == "" {
		return fmt.Errorf("--only needs --cache")
	}
	ep := inference.EP{Name: "cpu", Threads: *threads}
	if _, err := env.Init(""); err != nil { // loading the library is not measured
		return err
	}
	var f func() error
	switch *only {
	case "load":
		f = func() error {
			m, err := inference.LoadModel(*model, inference.LoadOptions{ModelFile: *variant, EP: ep, GraphCache: *cacheAt}, decoder.Opener(""))
			if err != nil {
				return err
			}
			return m.Close()
		}
	case "bare":
		copies, _ := filepath.Glob(filepath.Join(*cacheAt, "optimized", "*", "*.onnx"))
		if len(copies) != 1 {
			return fmt.Errorf("%d optimized copies in %s, want 1", len(copies), *cacheAt)
		}
		folder, err := models.Open(*model, *variant)
		if err != nil {
			return err
		}
		f = func() error { return decoder.BareSession(folder, copies[0], ep) }
	default:
		return fmt.Errorf("--only %q: choose load or bare", *only)
	}
	t, err := measure(func() error { return profiled(*profile, f) })
	if err != nil {
		return err
	}
	fmt.Printf("%s: %v\n", *only, t)
	return nil
}

// profiled runs f, with a CPU profile written to path unless path is "".
func profiled(path string, f func() error) error {
	stop, err := cpuprof.Start(path)
	if err != nil {
		return err
	}
	defer stop()
	return f()
}
