package decoder

import (
	"log/slog"

	"edgechat/inference"
	"edgechat/inference/ort/attnop"
	"edgechat/internal/eps"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// The per-row 8-bit KV cache (attnop.DomainRow): where the optimized copy's attention runs on
// EdgeChat's kernels, inference.LoadOptions.KVInt8 quantizes each cached row with its own scale
// when it is written (optimize.QuantizeKVRow) instead of ONNX Runtime's per-channel scales from
// a calibration run (kvint8.go): no calibration, no clipping. The kernels run prompts on the
// int8 cache themselves, so neither the float32 prompt path (floatprompt.go) nor the int8
// prompt twin (promptint8.go) is attached to it.
//
// Measured on a machine under heavy load (load average 12 to 19 on 2 cores, so CPU-time ratios
// only; tools/stepbench, 28-layer Qwen3-0.6B-shaped q4, 2 threads, paired steps): the step at
// 3,000 tokens over the float32 cache's at 100, CPU medians, 1.11 and 1.17 (per channel 1.12,
// 1.15; float32 1.58, 1.56). kernbench --attn at 3,000: the per-row operator 1.08–1.2× the
// per-channel one's time (its rows are 132 bytes apart, the scales gathered).

// KVRowVar is the environment variable that keeps the 8-bit cache per channel (ONNX Runtime's
// format, calibrated) where the per-row one would run: "off" (or "0", "false", "no"), for
// measuring the two or when the per-row one misbehaves.
const KVRowVar = "EDGECHAT_KVROW"

// kvRowCopy returns the per-row 8-bit cache copy of graph, the optimized copy of f's graph, or
// "" when there is none (its attention is not on the kernels, KVRowVar is off, or the copy
// could not be written: logged): the per-channel cache is tried then.
func kvRowCopy(f *models.Folder, graph string, o inference.LoadOptions) string {
	if switchedOff(KVRowVar) || !eps.IsCPU(o.EP.Name) || o.GraphCache == "" {
		return ""
	}
	info, err := proto.ReadInfo(graph)
	if err != nil || info.Metadata[optimize.MetaAttentionDomain] == "" {
		return "" // ONNX Runtime's attention: its per-channel cache
	}
	q, err := optimize.CachedKVRow(graph, o.GraphCache, attnop.DomainRow)
	if err != nil {
		slog.Info("the 8-bit KV cache is per channel: no per-row copy", "graph", f.Model, "reason", err)
		return ""
	}
	return q
}
