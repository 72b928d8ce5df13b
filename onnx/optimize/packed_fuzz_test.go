package optimize_test

import (
	"bytes"
	"os"
	"testing"

	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// FuzzRewritePacked feeds Rewrite, with the packing rewrites on, graphs made from hand-made
// MatMulNBits groups by the fuzzer: a model file is untrusted input, so a damaged one must come
// back as an error or as a graph that parses, never as a panic.
func FuzzRewritePacked(f *testing.F) {
	for _, c := range []struct {
		ms    []packMember
		opset int64
	}{
		{[]packMember{{n: 8, block: 16, acc: 4}, {n: 4, block: 16, acc: 4}, {n: 4, block: 16, acc: 4}}, 17},
		{[]packMember{{n: 8, block: 16, zp: true, bias: true}, {n: 8, block: 16, zp: true, bias: true}}, 11},
		{[]packMember{{n: 4, block: 32, scales2D: true, bits: 8}, {n: 4, block: 32, scales2D: true, bits: 8}}, 13},
	} {
		b, err := os.ReadFile(packGraph(f, c.ms, 32, c.opset, false, ""))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	o := optimize.Options{FusePackedQKV: true, FuseGateUp: true}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, _, err := optimize.Rewrite(b, o)
		if err != nil {
			return
		}
		if _, err := proto.Parse(bytes.NewReader(out), int64(len(out))); err != nil {
			if _, srcErr := proto.Parse(bytes.NewReader(b), int64(len(b))); srcErr == nil {
				t.Fatalf("the rewritten graph of a graph that parses does not parse: %v", err)
			}
		}
	})
}
