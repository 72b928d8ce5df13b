package decoder

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"edgechat/inference"
	"edgechat/models"
	"edgechat/onnx/proto"
)

// Compiled (EPContext) graphs hold a precompiled NPU program; with embed_mode 0 the program is
// a sidecar file named by the node's ep_cache_context attribute.

// checkContextBinaries refuses a compiled (EPContext) graph whose context binary, named by the
// node's ep_cache_context attribute, is not next to it, or that would run on another EP than
// QNN, the one EdgeChat's NPU builds are compiled for.
func checkContextBinaries(path string, info *proto.ModelInfo, ep inference.EP) error {
	for _, c := range info.EPContexts {
		if c.EmbedMode != 0 {
			continue
		}
		bin := c.CacheContext
		if !filepath.IsAbs(bin) {
			bin = filepath.Join(filepath.Dir(path), bin)
		}
		if _, err := os.Stat(bin); err != nil {
			return fmt.Errorf("%s is a compiled NPU model whose context binary %s is missing from %s: copy the whole build folder, .bin files included", filepath.Base(path), c.CacheContext, filepath.Dir(path))
		}
	}
	if len(info.EPContexts) > 0 && !strings.EqualFold(ep.Name, "qnn") {
		return fmt.Errorf("%s is compiled for the NPU (EPContext, %s): it runs only on the NPU (with an ONNX Runtime that offers QNN), not on %s", filepath.Base(path), cmp.Or(info.EPContexts[0].Source, "QNN"), ep.Label())
	}
	return nil
}

// checkCompositeContexts checks the context binaries of a static composite's two graphs.
func checkCompositeContexts(f *models.Folder, ep inference.EP) error {
	for _, p := range []string{f.Prefill, f.Gen} {
		info, err := proto.ReadInfo(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if err := checkContextBinaries(p, info, ep); err != nil {
			return err
		}
	}
	return nil
}

// sharedContext reports whether two graphs' EPContext nodes name the same context binary.
func sharedContext(a, b *proto.ModelInfo) bool {
	for _, x := range a.EPContexts {
		for _, y := range b.EPContexts {
			if x.EmbedMode == 0 && y.EmbedMode == 0 && x.CacheContext == y.CacheContext {
				return true
			}
		}
	}
	return false
}
