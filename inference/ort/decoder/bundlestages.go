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
	"edgechat/models"
	"edgechat/onnx/proto"
)

// readStages finds the embeddings, ctx, iter and lm_head stages — by the flags genai_config.json
// gives them first (is_lm_head; run_on_prompt and run_on_token_gen, which Foundry Local's
// builds set), by what their graphs take and give where the flags do not tell — and checks
// compiled stages' context binaries.
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
		i, err := stageRole(s, info, n)
		if err != nil {
			return st, fmt.Errorf("%s: %w", cfgPath, err)
		}
		if st[i] != nil {
			return st, fmt.Errorf("%s: stages %q and %q play the same part", cfgPath, st[i].Name, s.Name)
		}
		st[i] = &bundleStage{Stage: s, path: p, info: info}
	}
	for i, role := range []string{"embeddings", "prefill (ctx)", "decode (iter)", "lm_head"} {
		if st[i] == nil {
			return st, fmt.Errorf("%s has no %s stage: EdgeChat runs bundles of embeddings, ctx, iter and lm_head", cfgPath, role)
		}
	}
	return st, nil
}

// stageRole is the part a pipeline stage plays: 0 embeddings, 1 ctx, 2 iter, 3 lm_head.
// is_lm_head decides first; then a decoder that runs on the prompt only is ctx and one that
// runs on generated tokens only is iter (a flag left out means true, as in ONNX Runtime
// GenAI); a stage that runs on both is told by its graph: a decoder (past keys in) is ctx, or
// iter when it takes one row; logits out is lm_head, unless is_lm_head says false; input ids
// in is embeddings.
func stageRole(s models.Stage, info *proto.ModelInfo, n models.BundleNames) (int, error) {
	_, isDecoder := info.Input(fmt.Sprintf(n.PastKey, 0))
	_, hasLogits := info.Output(n.Logits)
	_, hasIDs := info.Input(n.InputIDs)
	if s.IsLMHead != nil && *s.IsLMHead {
		return 3, nil
	}
	onPrompt := s.RunOnPrompt == nil || *s.RunOnPrompt
	onGen := s.RunOnTokenGen == nil || *s.RunOnTokenGen
	switch {
	case !onPrompt && !onGen:
		return 0, fmt.Errorf("stage %q (%s) runs neither on the prompt nor on generated tokens (run_on_prompt and run_on_token_gen are false)", s.Name, s.Filename)
	case onPrompt != onGen && !isDecoder:
		return 0, fmt.Errorf("stage %q (%s) runs only on the %s but takes no %s: EdgeChat runs a decoder there", s.Name, s.Filename, map[bool]string{true: "prompt", false: "generated tokens"}[onPrompt], fmt.Sprintf(n.PastKey, 0))
	case onPrompt && !onGen:
		return 1, nil
	case onGen && !onPrompt:
		return 2, nil
	case isDecoder:
		if s.RunOnPrompt == nil && s.RunOnTokenGen == nil {
			hid := slices.IndexFunc(info.Inputs, func(v proto.IO) bool { return len(v.Dims) == 3 })
			if hid >= 0 && info.Inputs[hid].Dims[1].Value == 1 {
				return 2, nil
			}
		}
		return 1, nil
	case hasLogits && (s.IsLMHead == nil || *s.IsLMHead):
		return 3, nil
	case hasIDs:
		return 0, nil
	}
	return 0, fmt.Errorf("stage %q (%s) takes neither %s, %s nor gives %s: EdgeChat runs bundles of embeddings, ctx, iter and lm_head", s.Name, s.Filename, n.InputIDs, fmt.Sprintf(n.PastKey, 0), n.Logits)
}

// stageEP is the provider a stage runs on: the route's EP for stages whose session options
// name a provider (unless the route is the CPU's), else the CPU with the route's session
// settings (battery saver's no spin-waiting). The stage's provider options apply under the
// route's when both name the same provider.
func stageEP(s models.Stage, route inference.EP) inference.EP {
	name, opts := s.SessionOptions.Provider()
	if name == "" || eps.IsCPU(route.Name) {
		return inference.EP{Name: "cpu", Threads: route.Threads, Options: sessionEntries(route.Options)}
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

// sessionEntries are the ONNX Runtime session settings among a route's options (those named
// "session.*"), nil when there are none.
func sessionEntries(opts map[string]string) map[string]string {
	var out map[string]string
	for k, v := range opts {
		if strings.HasPrefix(k, "session.") {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
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
