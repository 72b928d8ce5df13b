package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"edgechat/inference/ort/decoder"
	"edgechat/inference/ort/loop"
	"edgechat/internal/membw"
	"edgechat/internal/paths"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// peerResult is one engine's figures over the rounds of `bench --compare`: its best, and
// each round's.
type peerResult struct {
	Engine     string  `json:"engine"`
	File       string  `json:"file,omitempty"`
	TTFTMillis float64 `json:"ttft_ms,omitempty"`
	DecodeTPS  float64 `json:"decode_tokens_per_s,omitempty"`
	Missing    string  `json:"missing,omitempty"` // why the peer did not run
	// Each round's figures, in order: set against EdgeChat's of the same round they give
	// ratios that a slow drift in the machine's load moves less than the bests.
	RoundTTFT   []float64 `json:"round_ttft_ms,omitempty"`
	RoundDecode []float64 `json:"round_decode_tokens_per_s,omitempty"`
}

// add records one round's figures.
func (p *peerResult) add(ttft, tps float64) {
	if p.TTFTMillis == 0 || ttft < p.TTFTMillis {
		p.TTFTMillis = ttft
	}
	p.DecodeTPS = max(p.DecodeTPS, tps)
	p.RoundTTFT, p.RoundDecode = append(p.RoundTTFT, ttft), append(p.RoundDecode, tps)
}

// pairedRatios are EdgeChat's figures over p's round by round (first token: EdgeChat's time
// over p's; decode: EdgeChat's speed over p's), each sorted.
func pairedRatios(edge, p peerResult) (ttft, decode []float64) {
	for i := range min(len(edge.RoundTTFT), len(p.RoundTTFT)) {
		if p.RoundTTFT[i] > 0 && p.RoundDecode[i] > 0 {
			ttft = append(ttft, edge.RoundTTFT[i]/p.RoundTTFT[i])
			decode = append(decode, edge.RoundDecode[i]/p.RoundDecode[i])
		}
	}
	slices.Sort(ttft)
	slices.Sort(decode)
	return ttft, decode
}

// compareOptions say how `bench --compare` runs.
type compareOptions struct {
	bench  BenchOptions
	gguf   string // the llama.cpp twin; "" looks for a .gguf beside the model
	rounds int
}

// comparePeers runs EdgeChat, a bare ONNX Runtime loop on the same graph file, and llama.cpp
// on the model's GGUF twin, in turn for each round on the same prompt ids, and keeps each
// engine's best first-token time and decode speed (the machine is shared: the best of a few
// interleaved rounds is the figure least moved by the others' load).
func comparePeers(ctx context.Context, path string, first *BenchResult, o compareOptions) ([]peerResult, error) {
	edge := peerResult{Engine: "EdgeChat", File: first.ModelFile}
	edge.add(first.TTFTMillis, first.DecodeTPS)
	bare := peerResult{Engine: "bare ONNX Runtime loop", File: first.ModelFile}
	llama := peerResult{Engine: "llama.cpp", File: o.gguf}
	script := filepath.Join(paths.CacheDir(), "llama", "bench.mjs")
	if llama.File == "" {
		found, _ := filepath.Glob(filepath.Join(first.Model, "*.gguf"))
		if len(found) > 0 {
			llama.File = found[0]
		}
	}
	switch _, err := os.Stat(script); {
	case llama.File == "":
		llama.Missing = "no GGUF twin: give --gguf FILE (tools/mkmodel --gguf writes one)"
	case err != nil:
		llama.Missing = "not installed: run tools/llamapeer/install.sh"
	}
	for round := range o.rounds {
		if round > 0 {
			r, err := Bench(ctx, path, o.bench)
			if err != nil {
				return nil, err
			}
			edge.add(r.TTFTMillis, r.DecodeTPS)
		}
		if err := runBare(&bare, first, o.bench); err != nil {
			return nil, fmt.Errorf("bare ONNX Runtime loop: %w", err)
		}
		if llama.Missing == "" {
			if err := runLlama(ctx, &llama, script, first, o.bench); err != nil {
				return nil, fmt.Errorf("llama.cpp: %w", err)
			}
		}
	}
	first.setDecodeLimit()
	return []peerResult{edge, bare, llama}, nil
}

// setDecodeLimit measures the machine's memory read bandwidth with the run's threads and
// sets the decode ceiling it gives: a decode step reads each weight of the graph once, but
// for the tables read a row at a time (the KV cache comes on top, so the ceiling is
// generous).
func (r *BenchResult) setDecodeLimit() {
	info, err := proto.ReadInfo(r.ModelFile)
	if err != nil || info.WeightBytes <= 0 {
		return
	}
	r.DecodeReadBytes = info.WeightBytes - info.TableBytes
	r.BandwidthBytesPerS = membw.Read(max(r.Threads, 1), bandwidthBuffer, 3)
	if r.DecodeReadBytes > 0 && r.BandwidthBytesPerS > 0 {
		r.DecodeLimitTPS = r.BandwidthBytesPerS / float64(r.DecodeReadBytes)
	}
}

// bandwidthBuffer is the buffer the bandwidth is read from: far past any cache.
const bandwidthBuffer = 512 << 20

func runBare(p *peerResult, first *BenchResult, o BenchOptions) error {
	// Each engine reads its weights from a warm page cache, whatever ran before it.
	if err := loop.Warm(first.ModelFile); err != nil {
		return err
	}
	// The cache kept as the app keeps it: one buffer appended in place where the graph's
	// attention is GroupQueryAttention (the optimized copy), else ping-pong, which copies the
	// whole cache every step.
	info, err := proto.ReadInfo(first.ModelFile)
	if err != nil {
		return err
	}
	shared := info.Metadata[optimize.MetaAttention] != "" || info.Ops[proto.OpKey("com.microsoft", "GroupQueryAttention")] > 0
	// The copy's attention may run on EdgeChat's kernels: the loop registers them as the app does.
	setup, err := decoder.KernelSetup(first.ModelFile)
	if err != nil {
		return err
	}
	// Spinning as EdgeChat's sessions get it (ONNX Runtime's default spins even on a busy
	// machine, where spinning threads starve).
	l, err := loop.Open(first.ModelFile, loop.Options{Threads: first.Threads, MaxTokens: len(first.PromptIDs) + o.DecodeTokens + 1, SharedKV: shared,
		Config: decoder.SessionConfig(o.EP.Options), Setup: setup})
	if err != nil {
		return err
	}
	defer l.Close()
	r, err := l.Greedy(first.PromptIDs, o.DecodeTokens)
	if err != nil {
		return err
	}
	p.add(float64(r.TTFT.Microseconds())/1000, r.DecodeTPS)
	return nil
}

func runLlama(ctx context.Context, p *peerResult, script string, first *BenchResult, o BenchOptions) error {
	ids := make([]string, len(first.PromptIDs))
	for i, id := range first.PromptIDs {
		ids[i] = strconv.Itoa(id)
	}
	// Two evaluations in one process, the better of them kept: llama.cpp's first one after
	// loading pays for allocating and touching its buffers (~40% more first-token time here),
	// which EdgeChat's figure, taken after warm-up runs in the first round, does not.
	cmd := exec.CommandContext(ctx, "node", script, "--model", p.File, "--prompt-ids", strings.Join(ids, ","),
		"--tokens", strconv.Itoa(o.DecodeTokens), "--threads", strconv.Itoa(first.Threads), "--repeat", "2")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var r struct {
		Engine    string  `json:"engine"`
		TTFT      float64 `json:"ttft_ms"`
		DecodeTPS float64 `json:"decode_tokens_per_s"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return fmt.Errorf("read its result %q: %w", out, err)
	}
	if r.Engine != "" {
		p.Engine = r.Engine
	}
	p.add(r.TTFT, r.DecodeTPS)
	return nil
}

// printCompare prints the engines side by side, with each one's ratio to EdgeChat.
func printCompare(out io.Writer, peers []peerResult, r *BenchResult, rounds int) error {
	if len(peers) == 0 || peers[0].DecodeTPS == 0 {
		return errors.New("no EdgeChat figures to compare")
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "\nSide by side\t%d prompt tokens, %d greedy tokens, %d threads, best of %d rounds\n", len(r.PromptIDs), r.DecodeTokens, r.Threads, rounds)
	fmt.Fprintf(w, "Engine\tFirst token\tDecode\tEdgeChat's decode ÷ its\tEdgeChat's first token ÷ its\tFile\n")
	base := peers[0]
	for _, p := range peers {
		if p.Missing != "" {
			fmt.Fprintf(w, "%s\t—\t—\t\t\t%s\n", p.Engine, p.Missing)
			continue
		}
		fmt.Fprintf(w, "%s\t%.0f ms\t%.1f tokens/s\t%.2f×\t%.2f×\t%s\n", p.Engine, p.TTFTMillis, p.DecodeTPS,
			base.DecodeTPS/p.DecodeTPS, base.TTFTMillis/p.TTFTMillis, filepath.Base(p.File))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, p := range peers[1:] {
		ttft, decode := pairedRatios(base, p)
		if len(ttft) < 2 {
			continue
		}
		fmt.Fprintf(out, "Round by round against %s (%d rounds): first token %s, decode %s\n", p.Engine, len(ttft), spread(ttft), spread(decode))
	}
	if r.DecodeLimitTPS > 0 {
		fmt.Fprintf(out, "Memory bandwidth %.1f GB/s read with %d threads; a decode step reads %.0f MB of weights, so at most %.0f tokens/s:",
			r.BandwidthBytesPerS/1e9, r.Threads, float64(r.DecodeReadBytes)/1e6, r.DecodeLimitTPS)
		for i, p := range peers {
			if p.Missing == "" && p.DecodeTPS > 0 {
				sep := ","
				if i == 0 {
					sep = ""
				}
				fmt.Fprintf(out, "%s %s at %.0f%%", sep, p.Engine, 100*p.DecodeTPS/r.DecodeLimitTPS)
			}
		}
		fmt.Fprintln(out)
	}
	return nil
}

// spread is a sorted list's median and range, as ratios.
func spread(sorted []float64) string {
	return fmt.Sprintf("%.2f× (%.2f–%.2f×)", percentile(sorted, 0.5), sorted[0], sorted[len(sorted)-1])
}
