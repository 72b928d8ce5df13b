// Command stepbench compares decoder graphs by one decode step at a fixed position, timed
// alone, many times over, the graphs in turn: on a machine shared with other jobs a step's
// time swings by tens of percent from one step to the next, so it prints, besides each
// graph's quantiles, the ratio of every graph's step to the first graph's step taken right
// before or after it (same load), and the quantiles of those paired ratios. CPU time is the
// calling thread's with one thread, the process's with more (spin-waiting off unless --spin).
//
//	go run ./tools/stepbench --threads 2 --steps 200 base=/path/a.onnx new=/path/b.onnx
//
// A graph named name@N gets KV buffers of N rows (default: the prompt and a few); one named
// name#P (after any @N) takes its timed step after P tokens instead of --prompt's, so that
// short#100=a.onnx long#3000=a.onnx pairs one graph's step at two context lengths. A name
// containing -noflash runs ONNX Runtime's GroupQueryAttention without its flash path
// (env.GQAFlashVar); a bare loop's containing -mempattern keeps ONNX Runtime's memory
// patterns on (the loop, as the app's decoder, turns them off).
// STEPBENCH_CONFIG_<name>="key=value;key=value" adds session config entries to that graph's
// session (e.g. session.dynamic_block_base=4).
//
// A name=path whose path is a model folder (not an .onnx file) runs the app's own decoder on
// it instead of the bare loop: inference.LoadModel with the ONNX Runtime decoder, its
// optimized copy from the graph cache, the decoder's session options (spinning as --spin
// says) and its Forward with a cancellable context, as edgechat bench times it. Set against a
// bare loop on the same copy it shows what the app's decode path costs above the bare step.
// Such a side keeps the 32-bit KV cache unless its name says otherwise: -kv8 keeps it in 8 bits
// (the KV cache setting's 8-bit: per row where EdgeChat's attention kernels run; -kv8pc keeps
// ONNX Runtime's per-channel format instead, decoder.KVRowVar off, whose first load calibrates
// the copy), -kvauto as the app does by default (inference.KVAuto); one whose name contains gqa (ours-gqa, gqa-kv8) runs ONNX Runtime's
// GroupQueryAttention where the app would run EdgeChat's attention kernels
// (inference.LoadOptions.PlainAttention), so that ours@500=DIR gqa-ours@500=DIR pairs the two
// in one process; one whose name contains mlas (mlas-ours) runs ONNX Runtime's MatMulNBits
// where the app would run EdgeChat's int4 product kernel (inference.LoadOptions.PlainMatMul);
// one whose name contains -noqk keeps Qwen3's q/k norms (and the Split and Reshapes around
// them) as nodes of their own instead of inside the kernels' attention (decoder.QKFoldVar), so
// that ours=DIR ours-noqk=DIR pairs the fold; one whose name contains noswiglu keeps each MLP's
// Split, SiLU and Mul before its down projection (decoder.SwiGLUVar off) where the app would
// fold them into the kernel's product; one whose name contains noprenorm keeps the layers' RMS
// norms (with their residual adds) as nodes of their own (decoder.PreNormVar off) where the app
// would fold them into the kernel's products that read them; one whose name contains nolayout keeps
// the products' weights in MatMulNBits' order (decoder.LayoutVar off; the app writes the kernel's layout 1). One whose name contains -chunkN
// (r-kv8-chunk256) makes EdgeChat's attention kernels split a decode step's cached rows into work items
// of N rows (attnop.DecodeChunkVar). A bare loop on a copy whose attention or products run on
// the kernels registers them.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"edgechat/inference"
	"edgechat/inference/ort/attnop"
	"edgechat/inference/ort/decoder"
	"edgechat/inference/ort/env"
	"edgechat/inference/ort/loop"
	"edgechat/inference/sample"
	"edgechat/internal/cpuprof"
	"edgechat/internal/eps"
	"edgechat/internal/paths"
)

var (
	prompt  = flag.Int("prompt", 428, "tokens before the timed step")
	steps   = flag.Int("steps", 100, "timed steps per graph (after 3 untimed)")
	threads = flag.Int("threads", 1, "intra-op threads")
	spin    = flag.Bool("spin", false, "let ONNX Runtime's threads spin-wait")
	greedy  = flag.Int("greedy", 1, "decode steps a timed sample takes, each feeding the last one's greedy token (64 after 428 tokens is edgechat bench's decode run); its figure is their mean")
	profile = flag.String("cpuprofile", "", "write a Go CPU profile of the timed steps to this file (the Go side and its cgo calls; ONNX Runtime's own threads are not sampled)")
)

// rusageThread is RUSAGE_THREAD (Linux).
const rusageThread = 1

// cpu is the CPU time of this thread (one ONNX Runtime thread: the caller runs the kernels) or
// of the process.
func cpu(thread bool) time.Duration {
	who := syscall.RUSAGE_SELF
	if thread {
		who = rusageThread
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(who, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stepper is one side: a bare loop or the app's decoder.
type stepper interface {
	Truncate(n int)
	// prefill runs the prompt in one call and step feeds one token; both return the next
	// greedy token.
	prefill(ids []int) (int, error)
	step(id int) (int, error)
	Close() error
}

// graph is one side's session and its timings in ms.
type graph struct {
	name      string
	prompt    int // tokens before the timed step
	l         stepper
	next      int
	cpu, wall []float64
}

// bare is a bare loop side.
type bare struct{ *loop.Loop }

func (b bare) step(id int) (int, error) { return b.prefill([]int{id}) }
func (b bare) prefill(ids []int) (int, error) {
	next, err := b.Forward(ids, 1)
	if err != nil {
		return 0, err
	}
	return next[0], nil
}

// app is the app's decoder side.
type app struct {
	m      *inference.Model
	ctx    context.Context
	cancel context.CancelFunc
}

func (a app) Truncate(n int) { a.m.Decoder().Truncate(n) }
func (a app) Close() error {
	a.cancel()
	return a.m.Close()
}
func (a app) step(id int) (int, error) { return a.prefill([]int{id}) }
func (a app) prefill(ids []int) (int, error) {
	logits, err := a.m.Decoder().Forward(a.ctx, ids)
	if err != nil {
		return 0, err
	}
	return sample.Argmax(logits), nil
}

func main() {
	flag.Parse()
	if err := run(flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "stepbench:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("name graphs to compare as name=path.onnx")
	}
	runtime.LockOSThread() // RUSAGE_THREAD must see the thread that runs the sessions
	if _, err := env.Init(""); err != nil {
		return err
	}
	var gs []*graph
	for _, a := range args {
		name, path, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("%q is not name=path.onnx", a)
		}
		g, err := open(name, path)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer g.l.Close()
		gs = append(gs, g)
	}
	one := *threads == 1
	stop, err := cpuprof.Start(*profile)
	if err != nil {
		return err
	}
	defer stop()
	for r := 0; r < *steps+3; r++ {
		for j := range gs {
			g := gs[(j+r)%len(gs)] // each graph first in turn
			g.l.Truncate(g.prompt)
			c0, w0 := cpu(one), time.Now()
			next := g.next
			for range max(*greedy, 1) {
				var err error
				if next, err = g.l.step(next); err != nil {
					return fmt.Errorf("%s: %w", g.name, err)
				}
			}
			n := float64(max(*greedy, 1))
			c, w := (cpu(one)-c0).Seconds()/n, time.Since(w0).Seconds()/n
			if r >= 3 {
				g.cpu = append(g.cpu, c*1000)
				g.wall = append(g.wall, w*1000)
			}
		}
	}
	fmt.Printf("one decode step (the mean of %d greedy ones), %d threads, %d samples each\n", max(*greedy, 1), *threads, *steps)
	for _, g := range gs {
		fmt.Printf("%-14s after %5d tokens: cpu ms min %6.2f p25 %6.2f median %6.2f | wall ms min %6.2f p25 %6.2f median %6.2f\n", g.name, g.prompt,
			quantile(g.cpu, 0), quantile(g.cpu, .25), quantile(g.cpu, .5), quantile(g.wall, 0), quantile(g.wall, .25), quantile(g.wall, .5))
	}
	for _, g := range gs[1:] {
		var rc, rw []float64
		for i := range g.cpu {
			rc = append(rc, g.cpu[i]/gs[0].cpu[i])
			rw = append(rw, g.wall[i]/gs[0].wall[i])
		}
		fmt.Printf("%s ÷ %s, paired steps: cpu p25 %.3f median %.3f p75 %.3f | wall p25 %.3f median %.3f p75 %.3f\n", g.name, gs[0].name,
			quantile(rc, .25), quantile(rc, .5), quantile(rc, .75), quantile(rw, .25), quantile(rw, .5), quantile(rw, .75))
	}
	return nil
}

// open makes name's session on path (see the command's doc for the name suffix and the
// config variable) and prefills ids, keeping the token the timed steps feed.
func open(name, path string) (g *graph, err error) {
	n := *prompt
	if i := strings.LastIndex(name, "#"); i >= 0 {
		if n, err = strconv.Atoi(name[i+1:]); err != nil || n < 1 {
			return nil, fmt.Errorf("%s: the tokens after # must be a positive number", name)
		}
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = 100 + (i*7919)%5000
	}
	// Spinning stops at the end of every run, as in the app's sessions: otherwise a bare loop's
	// pool spins on while the next side's step is timed (the app's decoder against a bare loop
	// on the same copy came out at 0.61 with --spin, 1.000 without).
	cfg := map[string]string{"session.intra_op.allow_spinning": "0", "session.force_spinning_stop": "1"}
	if *spin {
		cfg["session.intra_op.allow_spinning"] = "1"
	}
	for _, kv := range strings.Split(os.Getenv("STEPBENCH_CONFIG_"+name), ";") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			cfg[k] = v
		}
	}
	// Switches the name turns on, each set for this session's making unless the environment
	// already sets it.
	switches := []struct{ part, env, val string }{{"-noflash", env.GQAFlashVar, "1"}, {"-noqk", decoder.QKFoldVar, "off"},
		{"noswiglu", decoder.SwiGLUVar, "off"}, {"-kv8pc", decoder.KVRowVar, "off"}, {"noprenorm", decoder.PreNormVar, "off"},
		{"layout1", decoder.LayoutVar, "on"}, {"nolayout", decoder.LayoutVar, "off"}}
	if i := strings.Index(name, "-chunk"); i >= 0 {
		// -chunkN: decode items of N cached rows in EdgeChat's attention kernels.
		after := name[i+len("-chunk"):]
		switches = append(switches, struct{ part, env, val string }{"-chunk", attnop.DecodeChunkVar, after[:len(after)-len(strings.TrimLeft(after, "0123456789"))]})
	}
	for _, sw := range switches {
		if _, set := os.LookupEnv(sw.env); !set && strings.Contains(name, sw.part) {
			if err := os.Setenv(sw.env, sw.val); err != nil {
				return nil, err
			}
			defer os.Unsetenv(sw.env)
		}
	}
	rows := n + 4
	if _, at, ok := strings.Cut(name, "@"); ok {
		at, _, _ = strings.Cut(at, "#")
		if rows, err = strconv.Atoi(at); err != nil || rows < n+1 {
			return nil, fmt.Errorf("%s: the rows after @ must be a number above the prompt's", name)
		}
	}
	var l stepper
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		cfg[eps.SpinKey] = cfg["session.intra_op.allow_spinning"]
		kv := inference.KV32
		switch {
		case strings.Contains(name, "-kv8"):
			kv = inference.KV8
		case strings.Contains(name, "-kvauto"):
			kv = inference.KVAuto
		}
		m, err := inference.LoadModel(path, inference.LoadOptions{MaxContext: rows, GraphCache: paths.GraphCacheDir(),
			EP: inference.EP{Name: "cpu", Threads: *threads, Options: cfg}, KVCache: kv,
			PlainAttention: strings.Contains(name, "gqa"), PlainMatMul: strings.Contains(name, "mlas")}, decoder.Open)
		if err != nil {
			return nil, err
		}
		// As edgechat bench runs it: a context that can be cancelled (the decoder then arms
		// run-option termination around every run).
		ctx, cancel := context.WithCancel(context.Background())
		l = app{m: m, ctx: ctx, cancel: cancel}
	} else {
		setup, err := decoder.KernelSetup(path)
		if err != nil {
			return nil, err
		}
		lp, err := loop.Open(path, loop.Options{Threads: *threads, MaxTokens: rows, SharedKV: true, Config: cfg, MemPattern: strings.Contains(name, "-mempattern"), Setup: setup})
		if err != nil {
			return nil, err
		}
		l = bare{lp}
	}
	next, err := l.prefill(ids)
	if err != nil {
		l.Close()
		return nil, err
	}
	return &graph{name: name, prompt: n, l: l, next: next}, nil
}

// quantile is the q-quantile of v (nearest rank below).
func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}
