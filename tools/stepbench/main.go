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
// with the suffix -noflash runs ONNX Runtime's GroupQueryAttention without its
// flash path (env.GQAFlashVar); STEPBENCH_CONFIG_<name>="key=value;key=value" adds session
// config entries to that graph's session (e.g. session.dynamic_block_base=4).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"edgechat/inference/ort/env"
	"edgechat/inference/ort/loop"
)

var (
	prompt  = flag.Int("prompt", 428, "tokens before the timed step")
	steps   = flag.Int("steps", 100, "timed steps per graph (after 3 untimed)")
	threads = flag.Int("threads", 1, "intra-op threads")
	spin    = flag.Bool("spin", false, "let ONNX Runtime's threads spin-wait")
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

// graph is one graph's session and its timings in ms.
type graph struct {
	name      string
	l         *loop.Loop
	next      int
	cpu, wall []float64
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
	ids := make([]int, *prompt)
	for i := range ids {
		ids[i] = 100 + (i*7919)%5000
	}
	var gs []*graph
	for _, a := range args {
		name, path, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("%q is not name=path.onnx", a)
		}
		g, err := open(name, path, ids)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer g.l.Close()
		gs = append(gs, g)
	}
	one := *threads == 1
	for r := 0; r < *steps+3; r++ {
		for j := range gs {
			g := gs[(j+r)%len(gs)] // each graph first in turn
			g.l.Truncate(*prompt)
			c0, w0 := cpu(one), time.Now()
			if _, err := g.l.Forward([]int{g.next}, 1); err != nil {
				return fmt.Errorf("%s: %w", g.name, err)
			}
			c, w := cpu(one)-c0, time.Since(w0)
			if r >= 3 {
				g.cpu = append(g.cpu, c.Seconds()*1000)
				g.wall = append(g.wall, w.Seconds()*1000)
			}
		}
	}
	fmt.Printf("one decode step after %d tokens, %d threads, %d steps each\n", *prompt, *threads, *steps)
	for _, g := range gs {
		fmt.Printf("%-14s cpu ms min %6.2f p25 %6.2f median %6.2f | wall ms min %6.2f p25 %6.2f median %6.2f\n", g.name,
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
func open(name, path string, ids []int) (g *graph, err error) {
	cfg := map[string]string{"session.intra_op.allow_spinning": "0"}
	if *spin {
		cfg["session.intra_op.allow_spinning"] = "1"
	}
	for _, kv := range strings.Split(os.Getenv("STEPBENCH_CONFIG_"+name), ";") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			cfg[k] = v
		}
	}
	if _, set := os.LookupEnv(env.GQAFlashVar); !set && strings.HasSuffix(name, "-noflash") {
		if err := os.Setenv(env.GQAFlashVar, "1"); err != nil {
			return nil, err
		}
		defer os.Unsetenv(env.GQAFlashVar)
	}
	rows := *prompt + 4
	if _, n, ok := strings.Cut(name, "@"); ok {
		if rows, err = strconv.Atoi(n); err != nil || rows < *prompt+1 {
			return nil, fmt.Errorf("%s: the rows after @ must be a number above the prompt's", name)
		}
	}
	l, err := loop.Open(path, loop.Options{Threads: *threads, MaxTokens: rows, SharedKV: true, Config: cfg})
	if err != nil {
		return nil, err
	}
	next, err := l.Forward(ids, 1)
	if err != nil {
		l.Close()
		return nil, err
	}
	return &graph{name: name, l: l, next: next[0]}, nil
}

// quantile is the q-quantile of v (nearest rank below).
func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}
