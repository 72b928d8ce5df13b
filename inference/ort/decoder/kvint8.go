package decoder

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"edgechat/inference"
	"edgechat/internal/eps"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
	"edgechat/tokenizer"
)

// The per-channel int8 KV cache (inference.KV8 where EdgeChat's kernels do not run): ONNX
// Runtime's CPU GroupQueryAttention keeps the cache as int8 with a float32 scale per channel (onnx/optimize's QuantizeKV). The
// scales come from a float32 run of the GroupQueryAttention copy over a calibration text on
// the first load (each channel's largest value × kvMargin, keys by their rotation-invariant
// pair norms) and are written into a copy of that graph, cached beside it.
//
// Its session runs GroupQueryAttention's plain path (openIO, env.WithoutGQAFlash): after 3,000
// tokens a decode step takes 48.0 ms against 60.4 on the flash path and 94.3 with the float32
// cache (tools/cpubench --decode-only, 2 threads), ~0.64× the speed at 100 tokens.
//
// Measured before, on the flash path (28-layer Qwen3-0.6B-shaped q4, tools/cpubench, CPU time, 1 thread): a
// decode step after 3,000 tokens costs 0.59× the float32 cache's, after ~100 the same; a
// 3,000-token prompt 1.72× (ONNX Runtime's int8 path is slower in multi-row runs). stories260K
// picks its reference token at 39 of 40 teacher-forced steps; random-weight models, whose
// logits are near ties, part from the float32 text after a few tokens.
const (
	kvMargin = 1.25
	// kvCalibTokens bounds the calibration run (the text is ~450 Qwen3 tokens).
	kvCalibTokens = 512
	// kvCalibVersion names the calibration in the copy's cache key: change it when the text
	// or the way scales are found changes.
	kvCalibVersion = "kvcalib-1"
)

// kvInt8Copy returns the int8-cache copy of graph, the optimized copy of f's graph,
// calibrating it on first use (reported to o.Progress as reply.StepCalibrating), or "" (logged)
// when there is none: the float32 cache then runs as ever.
func kvInt8Copy(f *models.Folder, graph string, o inference.LoadOptions) string {
	q, err := kvInt8Graph(f, graph, o.GraphCache, o.EP, calibProgress(o.Progress))
	if err != nil {
		slog.Info("the KV cache stays float: no int8 copy", "graph", f.Model, "reason", err)
		return ""
	}
	return q
}

// openKVInt8 opens q, the int8-cache copy of f's graph, or returns nil and a note for the user
// when it does not load: the float32 cache then runs as ever. A copy ONNX cannot read (cut
// short, corrupt) is removed so that the next load makes it again. A copy on EdgeChat's
// attention kernels that could not register them is an error (*KernelError): the load then
// runs the copies without them.
func openKVInt8(f *models.Folder, q string, o inference.LoadOptions) (*dynamicDecoder, string, error) {
	g := *f
	g.Model = q
	d, err := loadDynamic(&g, o.EP, o.MaxContext)
	if err == nil {
		slog.Info("the KV cache is int8", "graph", f.Model, "copy", q)
		return d, "", nil
	}
	if kerr := (*KernelError)(nil); errors.As(err, &kerr) {
		return nil, "", err
	}
	slog.Warn("the KV cache stays float: the int8 copy did not load", "graph", f.Model, "copy", q, "reason", err)
	const off = "the 8-bit KV cache is off for this load: its cached copy "
	if _, rerr := proto.ReadInfo(q); errors.Is(rerr, proto.ErrNotONNX) && os.Remove(q) == nil {
		return nil, off + rerr.Error() + "; it was removed and the next load makes it again — the model runs with the usual 32-bit cache", nil
	}
	return nil, fmt.Sprintf("%s%s did not load (%v) — the model runs with the usual 32-bit cache", off, q, err), nil
}

// LoadNotes are what a person should know about how the decoder was opened (e.g. the 8-bit
// cache's copy did not load), sent with the first chat reply.
func (d *dynamicDecoder) LoadNotes() []string { return d.notes }

// kvInt8Graph returns the int8-cache copy of gqa, the GroupQueryAttention copy of f's graph,
// calibrating on first use, or why there is none. report, when set, hears how far a
// calibration has gone (0 to 1); a cached copy reports nothing.
func kvInt8Graph(f *models.Folder, gqa, cacheDir string, ep inference.EP, report func(float64)) (string, error) {
	if !eps.IsCPU(ep.Name) {
		return "", fmt.Errorf("the int8 KV cache runs on the CPU only")
	}
	if cacheDir == "" {
		return "", fmt.Errorf("no folder for optimized copies")
	}
	info, err := proto.ReadInfo(gqa)
	if err != nil {
		return "", err
	}
	if info.Metadata[optimize.MetaAttention] == "" {
		return "", fmt.Errorf("the model's attention runs as published, not as GroupQueryAttention")
	}
	tok, err := tokenizer.Load(f.Dir)
	if err != nil {
		return "", fmt.Errorf("calibration text: %w", err)
	}
	ids := tok.EncodeSpecial(optimize.KVCalibrationText)
	n := kvCalibTokens
	if f.Config != nil && f.Config.MaxPositionEmbeddings > 0 {
		n = min(n, f.Config.MaxPositionEmbeddings)
	}
	ids = ids[:min(len(ids), n)]
	if len(ids) == 0 {
		return "", fmt.Errorf("the calibration text has no tokens")
	}
	calib := fmt.Sprintf("%s %d tokens, margin %g", kvCalibVersion, len(ids), kvMargin)
	calibrated := false
	at := func(done float64) {
		if report != nil {
			report(done)
		}
	}
	q, err := optimize.CachedKVInt8(gqa, cacheDir, calib, func() (optimize.KVScales, error) {
		calibrated = true
		s, err := calibrateKV(f, gqa, ep, ids, at)
		at(calibWrite) // what is left: the int8 copy written
		return s, err
	})
	if calibrated {
		at(1)
	}
	return q, err
}

// The calibration's shares of its progress: the float32 session created by calibLoaded, the
// run over the text by calibWrite, the int8 copy written by 1.
const (
	calibLoaded = 0.15
	calibWrite  = 0.9
	// calibChunk is how many tokens of the text one run takes, so that its progress moves.
	calibChunk = 64
)

// calibrateKV runs the GroupQueryAttention copy gqa of f's graph with a float32 cache over ids
// and returns the int8 scales of its cache, telling at how far it has gone (up to calibWrite).
func calibrateKV(f *models.Folder, gqa string, ep inference.EP, ids []int, at func(float64)) (optimize.KVScales, error) {
	at(0)
	g := *f
	g.Model = gqa
	d, err := loadDynamic(&g, ep, len(ids)+1)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if d.io.KVType != "float32" {
		return nil, fmt.Errorf("calibrating an int8 cache needs a float32 one, not %s", d.io.KVType)
	}
	at(calibLoaded)
	for i := 0; i < len(ids); i += calibChunk {
		end := min(i+calibChunk, len(ids))
		if _, err := d.Forward(context.Background(), ids[i:end]); err != nil {
			return nil, fmt.Errorf("calibration run: %w", err)
		}
		at(calibLoaded + (calibWrite-calibLoaded)*float64(end)/float64(len(ids)))
	}
	src, err := os.ReadFile(gqa)
	if err != nil {
		return nil, err
	}
	keys, err := optimize.KVKeys(src)
	if err != nil {
		return nil, err
	}
	m := optimize.KVMax{}
	d.kv.eachRow(func(i, head int, row []float32) {
		p := d.io.Past[i/2]
		name := p.Key
		if i%2 == 1 {
			name = p.Value
		}
		m.Add(name, head, row, keys[name])
	})
	return optimize.ScalesFromMax(m, kvMargin), nil
}
