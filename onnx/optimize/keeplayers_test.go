package optimize_test

import (
	"os"
	"strings"
	"testing"

	"edgechat/internal/testkit/synth"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// KeepLayers cuts a q4 decoder after its first layers: their cache inputs and outputs stay,
// the later layers' go with their weights, and the LM head becomes an identity over the
// residual stream; asking for as many layers as the graph has leaves it whole.
func TestKeepLayers(t *testing.T) {
	o := synth.Tiny()
	o.Layers, o.Quant = 4, synth.QuantQ4
	src, err := os.ReadFile(write(t, o))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := proto.Parse(strings.NewReader(string(src)), int64(len(src)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		keep, layers int
		width        int64
	}{
		{2, 2, int64(o.Hidden)},
		{4, 4, int64(o.Vocab)},
	} {
		b, rep, err := optimize.Rewrite(src, optimize.Options{FloatCompute: true, LastRows: true, KeepInput: true, FuseRMSNorm: true, SharedKVAttention: true, KeepLayers: tc.keep})
		if err != nil {
			t.Fatal(err)
		}
		info, err := proto.Parse(strings.NewReader(string(b)), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		count := func(ios []proto.IO, prefix string) int {
			n := 0
			for _, x := range ios {
				if strings.HasPrefix(x.Name, prefix) {
					n++
				}
			}
			return n
		}
		logits, _ := info.Output("logits")
		nbits := info.Ops[proto.OpKey("com.microsoft", "MatMulNBits")]
		if rep.KeptLayers != tc.layers || rep.KeepLayersSkipped != "" || count(info.Inputs, "past_key_values.") != 2*tc.layers ||
			count(info.Outputs, "present.") != 2*tc.layers || logits.Dims[2].Value != tc.width || info.Ops[proto.OpKey("com.microsoft", "GroupQueryAttention")] != tc.layers {
			t.Errorf("keep %d: kept %d (%q), %d cache inputs, %d outputs, logits %v, ops %v", tc.keep, rep.KeptLayers, rep.KeepLayersSkipped,
				count(info.Inputs, "past_key_values."), count(info.Outputs, "present."), logits.Dims, info.Ops)
		}
		if tc.keep < o.Layers && (nbits != 7*tc.layers || info.Initializers >= whole.Initializers || info.WeightBytes-info.TableBytes >= (whole.WeightBytes-whole.TableBytes)/2) {
			t.Errorf("keep %d: %d MatMulNBits, %d of %d weights (%d of %d bytes besides the embedding): the later layers' and the LM head's should be gone",
				tc.keep, nbits, info.Initializers, whole.Initializers, info.WeightBytes-info.TableBytes, whole.WeightBytes-whole.TableBytes)
		}
	}
}
