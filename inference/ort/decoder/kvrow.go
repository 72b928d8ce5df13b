package decoder

import (
	"errors"
	"fmt"
	"log/slog"

	"edgechat/inference"
	"edgechat/inference/ort/attnop"
	"edgechat/internal/eps"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// The per-row 8-bit KV cache (attnop.DomainRow): where the optimized copy's attention runs on
// EdgeChat's kernels, the 8-bit cache (inference.KVAuto, the default, and KV8) quantizes each
// cached row with its own scale when it is written (optimize.QuantizeKVRow) instead of ONNX
// Runtime's per-channel scales from a calibration run (kvint8.go): no calibration, no clipping. The kernels run prompts on the
// int8 cache themselves, so neither the float32 prompt path (floatprompt.go) nor the int8
// prompt twin (promptint8.go) is attached to it.
//
// Measured on a machine under heavy load (load average 12 to 19 on 2 cores, so CPU-time ratios
// only; tools/stepbench, 28-layer Qwen3-0.6B-shaped q4, 2 threads, paired steps): the step at
// 3,000 tokens over the float32 cache's at 100, CPU medians, 1.11 and 1.17 (per channel 1.12,
// 1.15; float32 1.58, 1.56). kernbench --attn at 3,000: the per-row operator 1.08–1.2× the
// per-channel one's time (its rows are 132 bytes apart, the scales gathered).

// cacheCopies returns the copies of graph, the optimized copy of f's graph, that a load with o
// opens: kv8, the 8-bit cache's ("" for the 32-bit cache), perRow when it is the per-row one,
// and twin, the int8 prompt twin ("" for none). KVAuto takes the per-row cache where the
// kernels run and the 32-bit cache elsewhere, never calibrating; but with PromptInt8 it keeps
// the 32-bit cache where the twin is made, since the twin needs a float32 cache to run prompts
// on (the per-row cache's prompts run on the kernels: a user who turned 8-bit prompts on gets
// them). KV8 takes the per-row cache where the kernels run, without the twin, else the
// per-channel one, calibrated on the first load, with the twin on its float32 shadow.
func cacheCopies(f *models.Folder, graph string, o inference.LoadOptions) (kv8, twin string, perRow bool) {
	promptTwin := func() string {
		if !o.PromptInt8 {
			return ""
		}
		return int8PromptTwin(f, graph, o)
	}
	switch o.KVCache {
	case inference.KV8:
		if kv8 = kvRowCopy(f, graph, o, "per channel"); kv8 != "" {
			return kv8, "", true
		}
		return kvInt8Copy(f, graph, o), promptTwin(), false
	case inference.KVAuto:
		if twin = promptTwin(); twin != "" {
			slog.Info("the KV cache is 32-bit: 8-bit prompts run on a float32 cache (Settings → Prompts)", "graph", f.Model)
			return "", twin, false
		}
		kv8 = kvRowCopy(f, graph, o, "32-bit")
		return kv8, "", kv8 != ""
	}
	return "", promptTwin(), false
}

// KVRowVar is the environment variable that keeps the 8-bit cache per channel (ONNX Runtime's
// format, calibrated) where the per-row one would run: "off" (or "0", "false", "no"), for
// measuring the two or when the per-row one misbehaves.
const KVRowVar = "EDGECHAT_KVROW"

// kvRowCopy returns the per-row 8-bit cache copy of graph, the optimized copy of f's graph, or
// "" when there is none (its attention is not on the kernels, KVRowVar is off, or the copy
// could not be written: logged, with instead, the cache the load runs then).
func kvRowCopy(f *models.Folder, graph string, o inference.LoadOptions, instead string) string {
	if switchedOff(KVRowVar) || !eps.IsCPU(o.EP.Name) || o.GraphCache == "" {
		return ""
	}
	info, err := proto.ReadInfo(graph)
	if err != nil || info.Metadata[optimize.MetaAttentionDomain] == "" {
		return "" // ONNX Runtime's attention: its per-channel cache
	}
	q, err := optimize.CachedKVRow(graph, o.GraphCache, attnop.DomainRow)
	if err != nil {
		slog.Info("no per-row 8-bit KV cache copy", "graph", f.Model, "cache", instead, "reason", err)
		return ""
	}
	return q
}

// errKVRowOff says KVRowVar keeps the per-row cache off.
var errKVRowOff = errors.New("the per-row 8-bit cache is turned off (" + KVRowVar + "=off)")

// KVRowStatus says whether a CPU load keeps the per-row 8-bit cache where the settings ask for
// an 8-bit cache or leave it to the app (inference.KVAuto): nil when it does (for models whose
// attention EdgeChat's kernels take), else why not (for `edgechat sys`). ONNX Runtime must be
// loaded.
func KVRowStatus() error {
	if err := AttnKernelStatus(); err != nil {
		return fmt.Errorf("EdgeChat's attention kernels are not used: %w", err)
	}
	if switchedOff(KVRowVar) {
		return errKVRowOff
	}
	return nil
}
