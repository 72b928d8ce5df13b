package decoder

import (
	"edgechat/inference"
	"edgechat/models"
)

// BareSession creates and destroys the ONNX Runtime session of the dynamic decoder graph
// path (a published graph or an optimized copy) on ep, exactly as a load does — the same
// session options and inputs and outputs — and nothing more: no optimized copy, no check,
// no KV buffers. It is the yardstick for what a load adds to ONNX Runtime's own work
// (tools/loadbench).
func BareSession(f *models.Folder, path string, ep inference.EP) error {
	info, err := models.ReadGraph(path)
	if err != nil {
		return err
	}
	io, err := models.DescribeDecoder(path, info.Inputs, info.Outputs, f.GenAINames())
	if err != nil {
		return err
	}
	for _, x := range info.Inputs {
		if x.Name == "logits_to_keep" {
			io.LogitsToKeep = x.Name
		}
	}
	opts, err := newGraphOptions(ep, info)
	if err != nil {
		return err
	}
	defer opts.Destroy()
	s, _, _, err := openIO(io, path, opts)
	if err != nil {
		return err
	}
	return destroySession(s)
}
