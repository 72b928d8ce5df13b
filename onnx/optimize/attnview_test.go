package optimize

import (
	"math"
	"testing"

	"edgechat/onnx/proto"
)

// TestShapeLast: the last dimension of a tensor is read from its whole Shape by Gather -1 or
// 3, or by a Slice that runs from there to the end, and nothing else passes for it.
func TestShapeLast(t *testing.T) {
	for _, tc := range []struct {
		name       string
		op         string
		start, end int64 // the index (Gather) or the bounds (Slice)
		partial    bool  // the Shape has a start attribute
		want       bool
	}{
		{"Gather -1", "Gather", -1, 0, false, true},
		{"Gather 3 of [B,H,S,D]", "Gather", 3, 0, false, true},
		{"Gather 2", "Gather", 2, 0, false, false},
		{"Slice -1 to the end", "Slice", -1, math.MaxInt64, false, true},
		{"Slice 3:4", "Slice", 3, 4, false, true},
		{"Slice -1:0 (empty)", "Slice", -1, 0, false, false},
		{"Slice 2:3", "Slice", 2, 3, false, false},
		{"Gather -1 of a partial Shape", "Gather", -1, 0, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shape := mkNode(encodeNode("shape", "Shape", []string{"x"}, []string{"s"}))
			if tc.partial {
				shape = mkNode(encodeNode("shape", "Shape", []string{"x"}, []string{"s"}), withInt("start", 1))
			}
			var g []byte
			g = appendBytes(g, proto.FieldGraphInitializer, int64Initializer("at", tc.start))
			in := []string{"s", "at"}
			if tc.op == "Slice" {
				g = appendBytes(g, proto.FieldGraphInitializer, int64Initializer("end", tc.end))
				g = appendBytes(g, proto.FieldGraphInitializer, int64Initializer("axes", 0))
				in = append(in, "end", "axes")
			}
			take := mkNode(encodeNode("take", tc.op, in, []string{"d"}))
			gfs, err := fields(g)
			if err != nil {
				t.Fatal(err)
			}
			nodes := []node{shape, take}
			v := newAttnView(nodes, gfs, &proto.ModelInfo{})
			of, ok := v.shapeLast(take)
			if ok != tc.want || ok && of != "x" {
				t.Errorf("shapeLast = %q, %v; want %v", of, ok, tc.want)
			}
		})
	}
}
