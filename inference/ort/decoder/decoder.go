// Package decoder runs model graphs on ONNX Runtime: it is the only package that creates
// sessions. It holds the three decoders (dynamic shapes, static composite, decoder-pipeline
// bundle), their KV memory, compiled (EPContext) graphs and execution-provider options, and
// gives the engine (package inference) its decoders through Opener.
package decoder

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"edgechat/inference"
	"edgechat/inference/ort/attnop"
	"edgechat/inference/ort/env"
	"edgechat/internal/eps"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/reply"
)

// Opener returns the engine's decoder opener for ONNX Runtime: it loads the library named by
// the setting (see env.Locate; "" searches) on first use and then opens the folder's
// decoder.
func Opener(library string) inference.OpenFunc {
	return func(f *models.Folder, o inference.LoadOptions) (inference.Decoder, error) {
		if _, err := env.Init(library); err != nil {
			return nil, err
		}
		return Open(f, o)
	}
}

// Open opens the decoder of a model folder, whatever its layout, on o.EP with a cache of at
// most o.MaxContext tokens. ONNX Runtime must be initialised (env.Init).
func Open(f *models.Folder, o inference.LoadOptions) (inference.Decoder, error) {
	var (
		d   inference.Decoder
		err error
	)
	// ONNX Runtime tells nothing while it creates a session (~3 s for 28 layers): the step is
	// all a person can be told.
	starting := func() {
		if o.Progress != nil {
			o.Progress(reply.Progress{Step: reply.StepLoading, Fraction: 1})
		}
	}
	switch f.Layout {
	case models.LayoutHF, models.LayoutGenAI:
		var kern kernels
		var why error
		kern.attn, why = attnKernel(f, o)
		if why != nil && o.GraphCache != "" {
			slog.Info("attention runs on ONNX Runtime's GroupQueryAttention, not EdgeChat's kernels", "graph", f.Model, "reason", why)
		}
		kern.mm, why = matMulKernel(f, o)
		kern.swiglu, kern.prenorm = swigluOn(kern.mm), preNormOn(kern.mm)
		if why != nil && o.GraphCache != "" {
			slog.Info("int4 products run on ONNX Runtime's MatMulNBits, not EdgeChat's kernel", "graph", f.Model, "reason", why)
		}
		d, err = openOptimized(f, o, kern, starting)
		if kerr := (*KernelError)(nil); errors.As(err, &kerr) {
			slog.Warn("attention and int4 products run on ONNX Runtime's operators: EdgeChat's kernels did not register", "graph", f.Model, "reason", kerr.Err)
			d, err = openOptimized(f, o, kernels{}, starting)
		}
	case models.LayoutComposite:
		if err = checkCompositeContexts(f, o.EP); err == nil {
			starting()
			d, err = loadStatic(f, o.EP)
		}
	case models.LayoutBundle:
		starting()
		d, err = loadBundle(f, o.EP, o.MaxContext)
	default:
		err = fmt.Errorf("%s is a %s (layout %s), which this build cannot run yet", f.Dir, f.Layout.Describe(), f.Layout.Letter())
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// openOptimized opens the dynamic decoder of f (layouts A and B) on its optimized copy, made with
// EdgeChat's kernels kern (none: the zero value), calling starting before its sessions.
// A *KernelError says the kernels did not register: nothing is left open.
func openOptimized(f *models.Folder, o inference.LoadOptions, kern kernels, starting func()) (inference.Decoder, error) {
	g := *f // the optimized copy runs in the folder's place; f still names the user's file
	pr := newPrepProgress(o.Progress)
	graph := optimizedGraph(f, o.GraphCache, o.EP, o.MaxContext, kern, pr)
	pr.done()
	kv8, twin, perRow := cacheCopies(f, graph, o) // their first load writes them before the sessions start
	starting()
	note := ""
	if kv8 != "" {
		q, n, err := openKVInt8(f, kv8, o)
		if err != nil {
			return nil, err
		}
		if q != nil {
			if !perRow { // the kernels run the per-row cache's prompts themselves
				attachFloatPrompt(q, f, twin, kv8, o.EP)
			}
			return q, nil
		}
		note = n
	}
	dd, err := withPublishedFallback(f.Model, graph, o.GraphCache,
		func(graph string) (*dynamicDecoder, error) {
			g.Model = graph
			return loadDynamic(&g, o.EP, o.MaxContext)
		})
	if err != nil {
		return nil, err
	}
	if note != "" {
		dd.notes = append(dd.notes, note)
	}
	if g.Model == graph { // not when the copy failed and the published graph runs
		openPromptInt8(dd, twin, o.EP)
	}
	return dd, nil
}

// loadDynamic reads a dynamic decoder's interface from its graph and opens a session.
func loadDynamic(f *models.Folder, ep inference.EP, maxCtx int) (*dynamicDecoder, error) {
	info, err := models.ReadGraph(f.Model)
	if err != nil {
		return nil, err
	}
	if models.IsEmbeddingGraph(info.Outputs) {
		return nil, fmt.Errorf("%s is a text-embedding model: it ranks attached documents' passages (Settings → Embedding model) and cannot chat — choose a chat model", f.Dir)
	}
	io, err := models.DescribeDecoder(f.Model, info.Inputs, info.Outputs, f.GenAINames())
	if err != nil {
		return nil, err
	}
	io.LastRow = info.Metadata[optimize.MetaLogitsRows] == "last"
	for _, x := range info.Inputs {
		if x.Name == optimize.KeepInputName {
			io.LogitsToKeep = x.Name
		}
	}
	// Runs that ask for no rows pass empty tensors through the LM head: measured and tested
	// on the CPU; another provider may handle empty tensors less well, so it always gets one.
	io.KeepNone = io.LogitsToKeep != "" && info.Metadata[optimize.MetaKeepNone] == "1" && eps.IsCPU(ep.Name)
	io.SharedKV = attnop.AttentionNodes(info) > 0
	// An attention that rotates queries and keys itself knows positions up to its caches'.
	if rows, err := strconv.Atoi(info.Metadata[optimize.MetaRotaryRows]); err == nil && rows > 0 && (maxCtx <= 0 || maxCtx > rows) {
		maxCtx = rows
	}
	if io.Vocab == 0 && f.Config != nil {
		io.Vocab = f.Config.VocabSize
	}
	if io.Vocab == 0 && f.GenAI != nil {
		io.Vocab = f.GenAI.Model.VocabSize
	}
	switch {
	case f.Config != nil && f.Config.NumAttentionHeads > 0:
		io.QueryHeads = f.Config.NumAttentionHeads
	case f.GenAI != nil:
		io.QueryHeads = f.GenAI.Model.Decoder.NumAttentionHeads
	}
	opts, err := newGraphOptions(ep, info)
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	return newDynamicDecoder(f.Model, io, opts, maxCtx)
}

// loadStatic opens a static composite's prefill and gen decoders.
func loadStatic(f *models.Folder, ep inference.EP) (*staticDecoder, error) {
	var ios [2]*models.DecoderIO
	for i, p := range []string{f.Prefill, f.Gen} {
		info, err := models.ReadGraph(p)
		if err != nil {
			return nil, err
		}
		if ios[i], err = models.DescribeDecoder(p, info.Inputs, info.Outputs, nil); err != nil {
			return nil, err
		}
		if ios[i].SeqLen == 0 || ios[i].MaxCache == 0 {
			return nil, fmt.Errorf("%s has dynamic shapes; a static composite needs fixed input_ids and cache sizes", p)
		}
	}
	opts, err := newSessionOptions(ep)
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	return newStaticDecoder(f.Prefill, ios[0], f.Gen, ios[1], opts)
}
