package optimize

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/internal/testkit/synth"
	"edgechat/onnx/proto"
)

// TestCols16Order checks Cols16Weights and Cols16Scales against layout 1 as matmul.h states it:
// column n = 16P + c, block b: B's byte 4k+i of the block at 256(P·nb + b) + 64k + 4c + i, the
// scale at 16(P·nb + b) + c.
func TestCols16Order(t *testing.T) {
	for _, sh := range []struct{ n, k int }{{16, 32}, {48, 96}, {32, 1024}} {
		nb := sh.k / 32
		r := rand.New(rand.NewPCG(1, uint64(sh.n)))
		b, s := make([]byte, sh.n*nb*16), make([]byte, sh.n*nb*4)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		for i := range s {
			s[i] = byte(r.Uint32())
		}
		gb, gs := Cols16Weights(b, sh.n, sh.k), Cols16Scales(s, sh.n, sh.k)
		bad := 0
		for n := range sh.n {
			p, c := n/16, n%16
			for blk := range nb {
				for j := range 16 {
					k, i := j/4, j%4
					if gb[256*(p*nb+blk)+64*k+4*c+i] != b[16*(n*nb+blk)+j] {
						bad++
					}
				}
				for i := range 4 {
					if gs[4*(16*(p*nb+blk)+c)+i] != s[4*(n*nb+blk)+i] {
						bad++
					}
				}
			}
		}
		if bad > 0 {
			t.Errorf("N %d K %d: %d bytes out of place", sh.n, sh.k, bad)
		}
	}
}

// copyNodes reads the graph at path: its initializers' bytes by name (external ones from their
// files beside it) and its MatMulNBits nodes (name: inputs then K, layout attribute).
func copyNodes(t *testing.T, path string) (map[string][]byte, map[string][]string, map[string]int64) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mfs, err := fields(src)
	if err != nil {
		t.Fatal(err)
	}
	tensors, ins, layouts := map[string][]byte{}, map[string][]string{}, map[string]int64{}
	for _, mf := range mfs {
		if mf.num != proto.FieldModelGraph || mf.typ != protowire.BytesType {
			continue
		}
		gfs, err := fields(mf.val)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range gfs {
			switch {
			case f.num == proto.FieldGraphInitializer && f.typ == protowire.BytesType:
				name, pt, ok := readPackedTensor(f.val)
				if !ok {
					continue
				}
				if pt.raw == nil {
					fh, err := os.Open(filepath.Join(filepath.Dir(path), pt.loc))
					if err != nil {
						t.Fatal(err)
					}
					pt.raw = make([]byte, pt.n)
					if _, err := fh.ReadAt(pt.raw, pt.off); err != nil {
						t.Fatal(err)
					}
					fh.Close()
				}
				tensors[name] = pt.raw
			case f.num == proto.FieldGraphNode:
				n, err := parseNode(f.val)
				if err != nil {
					t.Fatal(err)
				}
				if n.op == "MatMulNBits" {
					ins[n.name] = n.inputs
					layouts[n.name], _, _ = intAttr(n.raw, LayoutAttr)
					k, _, _ := intAttr(n.raw, "K")
					ins[n.name] = append(ins[n.name], fmt.Sprint(k))
				}
			}
		}
	}
	return tensors, ins, layouts
}

// TestLayoutCols16 writes copies of a tiny int4 decoder with MatMulKernel.Cols16 on and off,
// weights inline and external (packed q, k, v and gate, up among them), and checks that every
// product the rewrite marks with layout 1 reads its weights and scales reordered
// (Cols16Weights, Cols16Scales of the other copy's), every other one the same bytes, that all
// moved (every N of the tiny model is a multiple of 16), and that the copies' names differ.
func TestLayoutCols16(t *testing.T) {
	for _, ext := range []bool{false, true} {
		t.Run(fmt.Sprintf("external=%v", ext), func(t *testing.T) {
			o := synth.Tiny()
			o.Quant, o.Vocab, o.ExternalData = synth.QuantQ4, 2048, ext
			dir := t.TempDir()
			if err := synth.Write(dir, o); err != nil {
				t.Fatal(err)
			}
			src := filepath.Join(dir, "onnx", o.Quant.File())
			cache := t.TempDir()
			opts := Options{AccuracyLevel: 4, FusePackedQKV: true, FuseGateUp: true, MatMulKernel: MatMulKernel{Domain: "test.f32"}}
			off, _, err := Cached(src, cache, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.MatMulKernel.Cols16 = true
			on, rep, err := Cached(src, cache, opts)
			if err != nil {
				t.Fatal(err)
			}
			if on == off {
				t.Fatalf("one copy %s for both", on)
			}
			want := 2*(2+1+1) + 1 // a layer's q+k+v, o, gate+up, down; the LM head
			if rep.Cols16 != want || rep.MatMulKernelNodes != want {
				t.Errorf("%d of %d products in layout 1, want %d (%s)", rep.Cols16, rep.MatMulKernelNodes, want, rep.Cols16Skipped)
			}
			wt, _, _ := copyNodes(t, off)
			gt, ins, layouts := copyNodes(t, on)
			marked := 0
			for name, in := range ins {
				if layouts[name] != 1 {
					continue
				}
				marked++
				var k int
				fmt.Sscan(in[len(in)-1], &k)
				n := 2 * len(wt[in[1]]) / k // B is N·K/2 bytes
				if !bytes.Equal(gt[in[1]], Cols16Weights(wt[in[1]], n, k)) || !bytes.Equal(gt[in[2]], Cols16Scales(wt[in[2]], n, k)) {
					t.Errorf("%s: weights or scales not in layout 1", name)
				}
			}
			if marked != want {
				t.Errorf("%d nodes with layout 1, want %d", marked, want)
			}
			for name, b := range wt {
				if g, ok := gt[name]; !ok || len(g) != len(b) {
					t.Errorf("tensor %s: %d bytes in the copy without layout 1, %d with", name, len(b), len(g))
				}
			}
		})
	}
}

// TestLayoutCols16Skips: products with N not a multiple of 16, or whose weights another node
// reads, keep MatMulNBits' order, and the report says why.
func TestLayoutCols16Skips(t *testing.T) {
	g := proto.Graph{Name: "mm", Inputs: []proto.ValueInfo{{Name: "x", Type: proto.Float, Dims: proto.Dims(1, "s", 64)}}}
	for _, n := range []struct {
		name string
		N    int64
		b    string
	}{{"odd", 40, "b40"}, {"shared1", 32, "b32"}, {"shared2", 32, "b32"}} {
		if n.name != "shared2" {
			g.Initializers = append(g.Initializers, &proto.Tensor{Name: n.b, DataType: proto.Uint8, Dims: []int64{n.N, 2, 16}, Raw: make([]byte, n.N*32)})
		}
		s := n.name + "_s"
		g.Initializers = append(g.Initializers, proto.FloatTensor(s, []int64{n.N * 2}, make([]float32, n.N*2)))
		g.Outputs = append(g.Outputs, proto.ValueInfo{Name: n.name + "_y", Type: proto.Float, Dims: proto.Dims(1, "s", n.N)})
		g.Nodes = append(g.Nodes, proto.Node{Name: n.name, OpType: "MatMulNBits", Domain: "com.microsoft",
			Inputs: []string{"x", n.b, s}, Outputs: []string{n.name + "_y"},
			Attrs: []proto.Attr{proto.IntAttr("K", 64), proto.IntAttr("N", n.N), proto.IntAttr("bits", 4), proto.IntAttr("block_size", 32), proto.IntAttr("accuracy_level", 4)}})
	}
	m := proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	_, rep, err := Rewrite(b, Options{MatMulKernel: MatMulKernel{Domain: "test.f32", Cols16: true}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.MatMulKernelNodes != 3 || rep.Cols16 != 0 || !strings.Contains(rep.Cols16Skipped, "not a multiple of 16") {
		t.Errorf("%d moved, %d in layout 1 (%q): want 3, 0 and N's reason", rep.MatMulKernelNodes, rep.Cols16, rep.Cols16Skipped)
	}
	g.Nodes, g.Outputs = g.Nodes[1:], g.Outputs[1:]
	m.Graph = g
	if b, err = m.Marshal(); err != nil {
		t.Fatal(err)
	}
	_, rep, err = Rewrite(b, Options{MatMulKernel: MatMulKernel{Domain: "test.f32", Cols16: true}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cols16 != 0 || !strings.Contains(rep.Cols16Skipped, "another node") {
		t.Errorf("%d in layout 1 (%q): want 0 and the shared weights' reason", rep.Cols16, rep.Cols16Skipped)
	}
}
