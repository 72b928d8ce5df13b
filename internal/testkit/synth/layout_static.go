package synth

import (
	"path/filepath"
)

// Layout C file names: the Windows ML generic composite's two final sub-models.
const (
	StaticPrefillFile = "decoder_prefill_model.onnx"
	StaticGenFile     = "decoder_gen_model.onnx"
)

// writeStatic writes layout C: a prefill model (S = PrefillLen) and a gen model (S = 1) over
// the same MaxCache-row right-aligned cache buffer, in one flat folder.
func writeStatic(dir string, o Options, w *weights) error {
	for _, m := range []struct {
		file string
		seq  int
	}{{StaticPrefillFile, o.PrefillLen}, {StaticGenFile, 1}} {
		if err := writeModel(filepath.Join(dir, m.file), buildDecoder(o, w, staticSpec(o, m.seq)), o); err != nil {
			return err
		}
	}
	return nil
}
