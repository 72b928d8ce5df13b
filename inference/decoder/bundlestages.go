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

	"edgechat/inference"
	"edgechat/internal/eps"
	"edgechat/internal/onnxproto"
	"edgechat/models"
)

// readStages finds the embeddings, ctx, iter and lm_head stages by what their graphs take and
// give, and checks compiled stages' context binaries.
func readStages(f *models.Folder, n models.BundleNames, ep inference.EP) ([4]*bundleStage, error) {
	var st [4]*bundleStage // embeddings, ctx, iter, lm_head
	cfgPath := filepath.Join(f.Dir, "genai_config.json")
	for _, s := range f.GenAI.Model.Decoder.Pipeline {
		p := filepath.Join(f.Dir, s.Filename)
		info, err := models.ReadGraph(p)
		if err != nil {
			return st, fmt.Errorf("bundle stage %q: %w", s.Name, err)
		}
		if err := checkContextBinaries(p, info, stageEP(s, ep)); err != nil {
			return st, err
		}
		bs := &bundleStage{Stage: s, path: p, info: info}
		_, isDecoder := info.Input(fmt.Sprintf(n.PastKey, 0))
		_, hasLogits := info.Output(n.Logits)
		_, hasIDs := info.Input(n.InputIDs)
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
			return st, fmt.Errorf("%s: stage %q (%s) takes neither %s, %s nor gives %s: EdgeChat runs bundles of embeddings, ctx, iter and lm_head", cfgPath, s.Name, s.Filename, n.InputIDs, fmt.Sprintf(n.PastKey, 0), n.Logits)
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

// stageEP is the provider a stage runs on: the route's EP for stages whose session options
// name a provider (unless the route is the CPU's), else the CPU. The stage's provider options
// apply under the route's when both name the same provider.
func stageEP(s models.Stage, route inference.EP) inference.EP {
	name, opts := s.SessionOptions.Provider()
	if name == "" || eps.IsCPU(route.Name) {
		return inference.EP{Name: "cpu", Threads: route.Threads}
	}
	ep := route
	if strings.EqualFold(name, route.Name) {
		ep.Options = eps.Merge(opts, route.Options)
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
func stageOptions(s models.Stage, route inference.EP, share bool) (*ort.SessionOptions, inference.EP, error) {
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
func openStage(s *bundleStage, route inference.EP, share bool, in, out []string) (*ort.DynamicAdvancedSession, error) {
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
