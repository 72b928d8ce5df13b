package decoder

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"

	"edgechat/inference"
	"edgechat/internal/eps"
	"edgechat/internal/host"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// promptInt8Rows is the fewest ids a run takes through the int8 prompt session
// (inference.LoadOptions.PromptInt8): decoding steps and prompt-lookup checks (at most
// maxRows) stay on the int4 session, whose block-32 quantization is the more exact.
const promptInt8Rows = 32

// promptInt8Dir is the folder of an optimized copy's int8 prompt twin, beside the copy: the
// copy's cache key covers the twin too.
const promptInt8Dir = "rowint8prompt"

// oldPromptInt8Dir is the folder of the first twin (one activation scale for the whole
// prompt), ~0.4 GB for a Qwen3-0.6B: removed when the new twin is written.
const oldPromptInt8Dir = "dqprompt"

// int8Refusal says why this processor cannot run the int8 prompt twin exactly ("" where it
// can); a variable so that tests can play a processor without VNNI.
var int8Refusal = host.Int8PromptsRefused

// errNoInt4 says the graph has no 4-bit MatMulNBits for an int8 prompt twin to replace.
var errNoInt4 = errors.New("no 4-bit MatMulNBits to run in int8")

// promptTwin returns the int8 prompt twin of the optimized copy graph (optimize.DQTwin: the
// layers' MatMulNBits as MatMulIntegerToFloat over int8 weights with a scale a column and
// activations quantized with a scale a row, the LM head left 4-bit), writing it the first time
// into a folder beside the copy (whole or not at all). The folder's name changed when the
// activations went from one scale a tensor to one a row, so that no older twin is reused.
func promptTwin(graph string, progress func(float64)) (string, error) {
	dir := filepath.Join(filepath.Dir(graph), promptInt8Dir)
	out := filepath.Join(dir, filepath.Base(graph))
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	tmp, err := os.MkdirTemp(filepath.Dir(graph), promptInt8Dir+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	n, size, err := optimize.DQTwin(graph, tmp, optimize.DQOptions{MaxN: 1 << 16, Progress: progress})
	debug.FreeOSMemory() // the weights passed through the heap: give it back before the sessions load
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", errNoInt4
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	if err := os.RemoveAll(filepath.Join(filepath.Dir(graph), oldPromptInt8Dir)); err != nil {
		slog.Warn("could not remove the old int8 prompt twin", "reason", err)
	}
	slog.Info("wrote the int8 prompt twin of the graph", "copy", graph, "twin", out, "nodes", n, "int8_bytes", size)
	return out, nil
}

// int8PromptTwin returns the int8 prompt twin of graph, the optimized copy of f's graph, where
// 8-bit prompts can run (the CPU runs them exactly: host.Int8PromptsRefused; the copy's
// attention keeps one shared KV buffer, which both sessions read and write), writing it on
// first use with its progress reported as reply.StepPrompts; "" (logged) where there is none.
func int8PromptTwin(f *models.Folder, graph string, o inference.LoadOptions) string {
	published := f.Model
	if graph == published || !eps.IsCPU(o.EP.Name) {
		slog.Info("prompts run on the int4 graph: the int8 prompt session needs the CPU and the optimized copy's shared KV buffer", "graph", published)
		return ""
	}
	if info, err := proto.ReadInfo(graph); err != nil || info.Metadata[optimize.MetaAttention] == "" {
		slog.Info("prompts run on the int4 graph: the int8 prompt session needs the optimized copy's shared KV buffer", "graph", published)
		return ""
	}
	if why := int8Refusal(); why != "" {
		slog.Warn("prompts run on the int4 graph: 8-bit prompts are off on this processor", "reason", why)
		return ""
	}
	twin, err := promptTwin(graph, twinProgress(o.Progress))
	if errors.Is(err, errNoInt4) {
		slog.Info("prompts run on the model's own graph: it has no 4-bit weights for an int8 prompt twin", "graph", published)
		return ""
	}
	if err != nil {
		slog.Warn("prompts run on the int4 graph: no int8 prompt twin", "graph", published, "reason", err)
		return ""
	}
	return twin
}

// openPromptInt8 opens d's int8 prompt session on twin (int8PromptTwin; "" for none). It logs
// and leaves d as it is when it cannot.
func openPromptInt8(d *dynamicDecoder, twin string, ep inference.EP) {
	if twin == "" {
		return
	}
	if err := d.openPrompt(twin, ep); err != nil {
		slog.Warn("prompts run on the int4 graph: no int8 prompt session", "twin", twin, "reason", err)
		return
	}
	slog.Info("prompts run on an int8 twin of the graph (per-row int8 activations, MatMulIntegerToFloat), decoding on the int4 graph", "twin", twin, "rows_from", promptInt8Rows)
}

// openPrompt opens the session of prompt runs on the graph at path, which must have d's
// inputs and outputs.
func (d *dynamicDecoder) openPrompt(path string, ep inference.EP) error {
	info, err := proto.ReadInfo(path)
	if err != nil {
		return err
	}
	opts, err := newGraphOptions(ep, info)
	if err != nil {
		return err
	}
	defer opts.Destroy()
	s, nIn, nOut, err := openIO(d.io, path, opts)
	if err != nil {
		return err
	}
	if nIn != len(d.inputs) || nOut != len(d.outputs) {
		destroySession(s)
		return fmt.Errorf("the twin's %d inputs and %d outputs are not the graph's %d and %d", nIn, nOut, len(d.inputs), len(d.outputs))
	}
	d.prompt = s
	return nil
}
