package optimize_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// optimumRope rewrites a synth graph's rotary embedding the way the PyTorch exporter writes
// Hugging Face's: the angles as MatMul(inv_freq[None, :, None], positions[:, None, :]) and
// a Transpose, cos and sin scaled by attention_scaling (1.0) and cast, and rotate_half's
// halves as two Slices whose bounds come from the tensor's shape (x.shape[-1] // 2).
// With the argument "scaled", the positions are also multiplied by 0.5 (linear position
// interpolation), which the rewrite must not take for plain positions; with "length", divided
// by the sequence's length, which no cache of angles can hold.
const optimumRope = `import sys, onnx, numpy as np
from onnx import helper, numpy_helper, TensorProto
m = onnx.load(sys.argv[1])
g = m.graph
scaled = "scaled" in sys.argv[3:]
bylength = "length" in sys.argv[3:]
prod = {o: n for n in g.node for o in n.output}
new = []
k = [0]
def name(s):
    k[0] += 1
    return "edit_%s_%d" % (s, k[0])
def const(vals, dtype=np.int64):
    t = name("c")
    g.initializer.append(numpy_helper.from_array(np.array(vals, dtype=dtype), t))
    return t
out = []
for n in g.node:
    if n.op_type == "Mul" and "model.rotary_emb.inv_freq" in n.input:
        pos = prod[[i for i in n.input if i != "model.rotary_emb.inv_freq"][0]]  # Unsqueeze(Cast(position_ids), 2)
        p = pos.input[0]
        if scaled:
            q = name("scaled")
            out.append(helper.make_node("Mul", [p, const(0.5, np.float32)], [q]))
            p = q
        if bylength:
            sh, ln, nf, q = name("sh"), name("len"), name("nf"), name("bylength")
            out.append(helper.make_node("Shape", ["position_ids"], [sh]))
            out.append(helper.make_node("Gather", [sh, const(1)], [ln], axis=0))
            out.append(helper.make_node("Cast", [ln], [nf], to=TensorProto.FLOAT))
            out.append(helper.make_node("Div", [p, nf], [q]))
            p = q
        # inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1), with the -1
        # written as the exporter does: Where(Equal(sizes, -1), 1, sizes).
        inv, exp, pe, mm = name("inv"), name("exp"), name("pos"), name("mm")
        sh, b, sizes, eq, ones, fixed = name("sh"), name("b"), name("sizes"), name("eq"), name("ones"), name("fixed")
        out.append(helper.make_node("Unsqueeze", ["model.rotary_emb.inv_freq", const([0, 2])], [inv]))
        out.append(helper.make_node("Shape", ["position_ids"], [sh]))
        out.append(helper.make_node("Gather", [sh, const([0])], [b], axis=0))
        out.append(helper.make_node("Concat", [b, const([-1, 1])], [sizes], axis=0))
        out.append(helper.make_node("Equal", [sizes, const([-1, -1, -1])], [eq]))
        out.append(helper.make_node("ConstantOfShape", [const([3])], [ones], value=numpy_helper.from_array(np.array([1], dtype=np.int64))))
        out.append(helper.make_node("Where", [eq, ones, sizes], [fixed]))
        out.append(helper.make_node("Expand", [inv, fixed], [exp]))
        out.append(helper.make_node("Unsqueeze", [p, const([1])], [pe]))
        out.append(helper.make_node("MatMul", [exp, pe], [mm]))
        out.append(helper.make_node("Transpose", [mm], [n.output[0]], perm=[0, 2, 1]))
        continue
    if n.op_type in ("Cos", "Sin"):
        raw, sc = name("raw"), name("scaled")
        out.append(helper.make_node(n.op_type, n.input, [raw]))
        out.append(helper.make_node("Mul", [raw, const(1.0, np.float32)], [sc]))
        out.append(helper.make_node("Cast", [sc], [n.output[0]], to=TensorProto.FLOAT))
        continue
    if n.op_type == "Split":
        x = n.input[0]
        sh, d, half, end = name("shape"), name("d"), name("half"), name("end")
        out.append(helper.make_node("Shape", [x], [sh]))
        out.append(helper.make_node("Gather", [sh, const(-1)], [d], axis=0))
        out.append(helper.make_node("Div", [d, const(2)], [half]))
        out.append(helper.make_node("Unsqueeze", [half, const([0])], [end]))
        out.append(helper.make_node("Slice", [x, const([0]), end, const([-1])], [n.output[0]]))
        out.append(helper.make_node("Slice", [x, end, const([2**63 - 1]), const([-1])], [n.output[1]]))
        continue
    out.append(n)
del g.node[:]
g.node.extend(out)
onnx.checker.check_model(m)
onnx.save(m, sys.argv[2])
`

// TestRotaryInAttention: where every layer's rotary embedding is recognised, the
// GroupQueryAttention copy rotates queries and keys itself (do_rotary) from caches of
// RotaryRows positions, the rotation's nodes and tables are gone, and the logits are the
// published graph's; where it is not (heads of 8, scaled positions), the attention is still
// rewritten, with the rotation as exported and the reason in the report.
func TestRotaryInAttention(t *testing.T) {
	q4 := synth.Tiny()
	q4.Quant = synth.QuantQ4
	q4f16 := synth.Tiny()
	q4f16.Quant, q4f16.KVFloat16 = synth.QuantQ4F16, true
	fp32 := write(t, synth.Tiny())
	stories := filepath.Join(testenv.SharedModel(t, "stories260K"), "onnx", "model.onnx")
	for _, tc := range []struct {
		name, path string
		tol        float64
		steps      int    // greedy steps compared: random weights quantized to int8 and float16 have near-ties that any change of rounding flips (see int8Tolerance)
		skipped    string // the reason the rotation stays as exported
	}{
		{"fp32", fp32, attnTolerance, 30, ""},
		{"q4", write(t, q4), int8Tolerance, 8, ""},
		{"q4f16", write(t, q4f16), fp16Tolerance, 8, ""},
		{"fp32 as the PyTorch exporter writes it", pythonEdit(t, fp32, optimumRope), attnTolerance, 30, ""},
		{"scaled positions", pythonEdit(t, fp32, optimumRope, "scaled"), attnTolerance, 30, "more than one floating-point constant"},
		{"angles that depend on the length", pythonEdit(t, fp32, optimumRope, "length"), attnTolerance, 30, "a Div node"},
		{"stories260K", stories, attnTolerance, 30, "head size 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := optimize.Options{SharedKVAttention: true, RotaryRows: 64, AccuracyLevel: 4, LastRows: true, KeepInput: true, LastLayerRows: true}
			out, rep, err := optimize.Cached(tc.path, t.TempDir(), o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.AttentionLayers == 0 {
				t.Fatalf("attention not rewritten: %s", rep.AttentionSkipped)
			}
			after, err := proto.ReadInfo(out)
			if err != nil {
				t.Fatal(err)
			}
			if tc.skipped != "" {
				if rep.RotaryRows != 0 || !strings.Contains(rep.RotarySkipped, tc.skipped) || after.Metadata[optimize.MetaRotaryRows] != "" {
					t.Errorf("rotary rows %d, skipped %q; want none because %q", rep.RotaryRows, rep.RotarySkipped, tc.skipped)
				}
			} else {
				if rep.RotaryRows != 64 || rep.RotarySkipped != "" || after.Metadata[optimize.MetaRotaryRows] != "64" {
					t.Fatalf("rotary rows %d (metadata %q), skipped %q", rep.RotaryRows, after.Metadata[optimize.MetaRotaryRows], rep.RotarySkipped)
				}
				for _, op := range []string{"Split", "Cos", "Sin"} {
					if after.Ops[op] != 0 {
						t.Errorf("%d %s nodes left", after.Ops[op], op)
					}
				}
			}
			testenv.CheckONNX(t, out)
			base := o
			base.SharedKVAttention, base.LastLayerRows, base.RotaryRows = false, false, 0
			ref, _, err := optimize.Cached(tc.path, t.TempDir(), base)
			if err != nil {
				t.Fatal(err)
			}
			rel, flips := compare(t, ref, out, []int{1, 403, 407, 261, 378, 9, 33, 12, 140, 5, 77, 300}, tc.steps)
			t.Logf("largest logit difference %.2g of the largest logit, %d greedy picks differ", rel, flips)
			if !(rel <= tc.tol) || flips != 0 {
				t.Errorf("logits differ by %.3g of the largest (tolerance %g), %d greedy picks differ", rel, tc.tol, flips)
			}
		})
	}
}

// TestRotaryCachesBounded: caches that would take more than 64 MB are not written; the
// rotation stays as exported and the report says why.
func TestRotaryCachesBounded(t *testing.T) {
	src, err := os.ReadFile(write(t, synth.Tiny()))
	if err != nil {
		t.Fatal(err)
	}
	_, rep, err := optimize.Rewrite(src, optimize.Options{SharedKVAttention: true, RotaryRows: 1 << 22})
	if err != nil {
		t.Fatal(err)
	}
	if rep.AttentionLayers == 0 || rep.RotaryRows != 0 || !strings.Contains(rep.RotarySkipped, "MB") {
		t.Errorf("attention layers %d, rotary rows %d, skipped %q", rep.AttentionLayers, rep.RotaryRows, rep.RotarySkipped)
	}
}
