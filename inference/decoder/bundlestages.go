package decoder

// Finding and opening the stages of a decoder-pipeline bundle (layout D).

import (
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/internal/onnxproto"
	"edgechat/models"
)

// readStages finds the embeddings, ctx, iter and lm_head stages by what their graphs take and
// give, and checks compiled stages' context binaries.
func readStages(f *models.Folder, n bundleNames, ep EP) ([4]*bundleStage, error) {
	var st [4]*bundleStage // embeddings, ctx, iter, lm_head
	cfgPath := filepath.Join(f.Dir, "genai_config.json")
	for _, s := range f.GenAI.Model.Decoder.Pipeline {
		p := filepath.Join(f.Dir, s.Filename)
		info, err := readGraph(p)
		if err != nil {
			return st, fmt.Errorf("bundle stage %q: %w", s.Name, err)
		}
		if err := checkContextBinaries(p, info, stageEP(s, ep)); err != nil {
			return st, err
		}
		bs := &bundleStage{Stage: s, path: p, info: info}
		_, isDecoder := info.Input(fmt.Sprintf(n.pastKey, 0))
		_, hasLogits := info.Output(n.logits)
		_, hasIDs := info.Input(n.inputIDs)
		i := -1
		switch {
		case isDecoder: // iter runs on generated tokens only, or (no flags) takes one row
			i = 1
			hid := slices.IndexFunc(info.Inputs, func(v onnxproto.IO) bool { return len(v.Dims) == 3 })
			if s.RunOnPrompt == nil && s.RunOnTokenGen == nil && hid >= 0 && info.Inputs[hid].Dims[1].Value == 1 ||
				s.RunOnTokenGen != nil && *s.RunOnTokenGen && (s.RunOnPrompt == nil || !*s.RunOnPrompt) {
				i = 2
			}
		case hasLogits:
			i = 3
		case hasIDs:
			i = 0
		default:
			return st, fmt.Errorf("%s: stage %q (%s) takes neither %s, %s nor gives %s: EdgeChat runs bundles of embeddings, ctx, iter and lm_head", cfgPath, s.Name, s.Filename, n.inputIDs, fmt.Sprintf(n.pastKey, 0), n.logits)
		}
		if st[i] != nil {
			return st, fmt.Errorf("%s: stages %q and %q play the same part", cfgPath, st[i].Name, s.Name)
		}
		st[i] = bs
	}
	for i, role := range []string{"embeddings", "prefill (ctx)", "decode (iter)", "lm_head"} {
		if st[i] == nil {
			return st, fmt.Errorf("%s has no %s stage: EdgeChat runs bundles of embeddings, ctx, iter and lm_head", cfgPath, role)
		}
	}
	return st, nil
}

// describeGQA reads a ctx or iter graph's interface.
func describeGQA(s *bundleStage, n bundleNames) (*gqaIO, error) {
	g := &gqaIO{}
	var err error
	if g.past, err = kvNames(s.info.Inputs, pastPattern, n.pastKey, n.pastValue); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	if g.present, err = kvNames(s.info.Outputs, presentPattern, n.presentKey, n.presentValue); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	if len(g.past) == 0 || len(g.past) != len(g.present) {
		return nil, fmt.Errorf("%s: found %d past and %d present key/value pairs (%s, %s); expected one of each per layer", s.path, len(g.past), len(g.present), n.pastKey, n.presentKey)
	}
	known := map[string]bool{n.pastSeqLen: true, n.totalSeqLen: true}
	for _, p := range slices.Concat(g.past, g.present) {
		known[p.Key], known[p.Value] = true, true
	}
	for _, name := range []string{n.pastSeqLen, n.totalSeqLen} {
		if v, ok := s.info.Input(name); !ok || v.ElemType != "int32" {
			return nil, fmt.Errorf("%s needs an int32 input %s (GroupQueryAttention's sequence lengths); found %q", s.path, name, v.ElemType)
		}
	}
	for i, list := range [][]onnxproto.IO{s.info.Inputs, s.info.Outputs} {
		var other []onnxproto.IO
		for _, v := range list {
			if !known[v.Name] {
				other = append(other, v)
			}
		}
		if len(other) != 1 || other[0].ElemType != "float32" || len(other[0].Dims) != 3 {
			return nil, fmt.Errorf("%s: expected one float32 hidden-state tensor [1, seq, hidden] among the %s besides the KV cache, found %s", s.path, [2]string{"inputs", "outputs"}[i], listNames(other))
		}
		if i == 0 {
			g.hiddenIn, g.seq, g.width = other[0].Name, int(max(other[0].Dims[1].Value, 0)), int(other[0].Dims[2].Value)
		} else {
			g.hiddenOut = other[0].Name
		}
	}
	past, _ := s.info.Input(g.past[0].Key)
	if len(past.Dims) != 4 || past.Dims[1].Value <= 0 || past.Dims[3].Value <= 0 || g.width <= 0 {
		return nil, fmt.Errorf("%s: past key %s has shape %s; expected [1, kv_heads, context_length, head_dim]", s.path, past.Name, shapeString(past.Dims))
	}
	if past.ElemType != "float32" && past.ElemType != "float16" {
		return nil, fmt.Errorf("%s: KV cache type %s is not supported (float32 or float16)", s.path, past.ElemType)
	}
	g.kvType, g.heads, g.rows, g.headDim = past.ElemType, int(past.Dims[1].Value), int(max(past.Dims[2].Value, 0)), int(past.Dims[3].Value)
	return g, nil
}

// stageEP is the provider a stage runs on: the route's EP for stages whose session options
// name a provider (unless the route is the CPU's), else the CPU. The stage's provider options
// apply under the route's when both name the same provider.
func stageEP(s models.Stage, route EP) EP {
	name, opts := s.SessionOptions.Provider()
	if name == "" || route.Name == "" || strings.EqualFold(route.Name, "cpu") {
		return EP{Name: "cpu", Threads: route.Threads}
	}
	ep := route
	if strings.EqualFold(name, route.Name) {
		ep.Options = withDefaults(route.Options, opts)
	}
	if ep.Threads <= 0 {
		ep.Threads = s.SessionOptions.IntraOpNumThreads
	}
	return ep
}

// skippedEntries are session config entries never set when loading a bundle:
// ep.context_enable makes ONNX Runtime compile again (a compiled model must only be loaded),
// and disabling the CPU fallback breaks the boundary Q/DQ ops that run on the CPU.
var skippedEntries = []string{"ep.context_enable", "session.disable_cpu_ep_fallback"}

// stageOptions builds one stage's session options: its EP (stageEP), its config entries but
// skippedEntries, and ep.share_ep_contexts=1 when share is set (ctx and iter whose EPContext
// nodes name one context binary load it once).
func stageOptions(s models.Stage, route EP, share bool) (*ort.SessionOptions, EP, error) {
	ep := stageEP(s, route)
	opts, err := newSessionOptions(ep)
	if err != nil {
		return nil, ep, fmt.Errorf("bundle stage %s (%s) on %s: %w", s.Name, s.Filename, ep.Label(), err)
	}
	entries := maps.Clone(s.SessionOptions.ConfigEntries)
	if entries == nil {
		entries = map[string]string{}
	}
	if share {
		entries["ep.share_ep_contexts"] = "1"
	}
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		if slices.Contains(skippedEntries, k) {
			slog.Info("bundle: ignoring session config entry", "stage", s.Name, "key", k, "value", entries[k])
			continue
		}
		if err := opts.AddSessionConfigEntry(k, entries[k]); err != nil {
			opts.Destroy()
			return nil, ep, fmt.Errorf("bundle stage %s: session config %s=%s: %w", s.Name, k, entries[k], err)
		}
	}
	return opts, ep, nil
}

// openStage creates one stage's session.
func openStage(s *bundleStage, route EP, share bool, in, out []string) (*ort.DynamicAdvancedSession, error) {
	opts, ep, err := stageOptions(s.Stage, route, share)
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	sess, err := newSession(s.path, in, out, opts)
	if err != nil {
		return nil, fmt.Errorf("load bundle stage %s (%s) on %s: %w", s.Name, s.path, ep.Label(), err)
	}
	return sess, nil
}
