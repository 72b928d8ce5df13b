package optimize

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// Layout 1 of EdgeChat's int4 product (inference/ort/attnop, matmul.h's Q4_W_COLS16): the same
// bytes as MatMulNBits' B [N][K/32][16] and scales [N·K/32], reordered in panels of 16 columns,
// block by block, so that one row's product reads each tensor once front to back and each
// 64-byte load of B holds one dword of a block for all 16 columns (a vpdpbusd's operand).
// Column n = 16P + c, block b: B's dword k (bytes 4k..4k+3 of the block) at byte
// 256(P·nb + b) + 64k + 4c, the scale at 16(P·nb + b) + c. N must be a multiple of 16.

// Cols16Panel is the columns of a layout-1 panel; N must be a multiple of it.
const Cols16Panel = 16

// Cols16Weights returns B [N][K/32][16] in layout 1.
func Cols16Weights(b []byte, n, k int) []byte { return cols16(b, n, k/32, 4) }

// Cols16Scales returns the scales [N·K/32] (float32, as their little-endian bytes) in layout 1.
func Cols16Scales(s []byte, n, k int) []byte { return cols16(s, n, k/32, 1) }

// cols16 reorders src's 4-byte units (column n, block b, unit j < per) into layout 1.
func cols16(src []byte, n, nb, per int) []byte {
	dst := make([]byte, len(src))
	for col := range n {
		p, c := col/Cols16Panel, col%Cols16Panel
		for b := range nb {
			for j := range per {
				s := ((col*nb+b)*per + j) * 4
				d := (((p*nb+b)*per+j)*Cols16Panel + c) * 4
				copy(dst[d:d+4], src[s:s+4])
			}
		}
	}
	return dst
}

// LayoutAttr is the attribute MatMulKernel.Cols16 sets (to 1) on a product whose weights and
// scales it wrote in layout 1; a copy without it (an older one) runs MatMulNBits' order.
const LayoutAttr = "layout"

// layoutCols16 writes the weights and scales of the MatMulNBits nodes in domain in layout 1
// and sets their LayoutAttr: those with N a multiple of 16 whose B and scales no other node
// reads, no graph input or output names, and whose bytes it can reorder — inline ones (in gfs
// or packed), and external ones when the copy has its own folder (ext: written reordered into
// packedData, which stays memory-mapped as the source's data is). It returns how many it
// rewrote and why the first left was not.
func layoutCols16(nodes []node, gfs []field, packed *packResult, info *proto.ModelInfo, ext bool, domain string) (done int, skipped string, err error) {
	uses := map[string]int{}
	for _, n := range nodes {
		for _, in := range n.inputs {
			uses[in]++
		}
	}
	for _, x := range append(slices.Clone(info.Outputs), info.Inputs...) {
		uses[x.Name] += 2 // never alone
	}
	inits := map[string]int{} // gfs index by initializer name
	for i, f := range gfs {
		if f.num == proto.FieldGraphInitializer && f.typ == protowire.BytesType {
			if name, _, ok := tensorHeader(f.val); ok {
				inits[name] = i
			}
		}
	}
	// columns reports whether tensor name's bytes can be reordered for nb blocks of per units:
	// each piece holds whole panels of 16 columns.
	columns := func(name string, nb, per int) bool {
		whole := func(n int64) bool { c := int64(4 * nb * per); return n > 0 && n%c == 0 && (n/c)%Cols16Panel == 0 }
		if w, ok := packed.where[name]; ok {
			for _, m := range w.members {
				if !whole(max(int64(len(m.raw)), m.n)) {
					return false
				}
			}
			return true
		}
		i, ok := inits[name]
		if !ok {
			return false
		}
		_, t, ok := readPackedTensor(gfs[i].val)
		return ok && (t.raw != nil || ext) && whole(max(int64(len(t.raw)), t.n))
	}
	offset := int64(0) // the end of packedData
	for _, s := range packed.data {
		offset += max(int64(len(s.b)), s.n)
	}
	reorder := func(name string, nb, per int) {
		if w, ok := packed.where[name]; ok {
			for j, m := range w.members {
				if w.ext {
					s := &packed.data[w.sec+j]
					if s.b != nil {
						s.b = cols16(s.b, len(s.b)/(4*nb*per), nb, per)
					} else {
						s.nb, s.per = nb, per
					}
				} else {
					packed.inits[w.init][1+j] = cols16(m.raw, len(m.raw)/(4*nb*per), nb, per)
				}
			}
			return
		}
		i := inits[name]
		_, t, _ := readPackedTensor(gfs[i].val)
		if t.raw != nil {
			t.raw = cols16(t.raw, len(t.raw)/(4*nb*per), nb, per)
			pieces, _ := packTensor(name, []packedTensor{t}, false, 0)
			gfs[i].raw = slices.Concat(pieces...)
			return
		}
		h := externalTensorProto(name, t.dims, t.dtype, packedData, offset, t.n)
		gfs[i].raw = appendBytes(nil, proto.FieldGraphInitializer, h)
		packed.data = append(packed.data, section{loc: t.loc, off: t.off, n: t.n, nb: nb, per: per})
		offset += t.n
		if pad := (4096 - t.n%4096) % 4096; pad > 0 {
			packed.data = append(packed.data, section{b: make([]byte, pad)})
			offset += pad
		}
	}
	for i, n := range nodes {
		if n.op != "MatMulNBits" || n.domain != domain || len(n.inputs) < 3 {
			continue
		}
		k, _, _ := intAttr(n.raw, "K")
		nn, _, _ := intAttr(n.raw, "N")
		b, s, nb := n.inputs[1], n.inputs[2], int(k/32)
		why := ""
		switch {
		case nn%Cols16Panel != 0 || k <= 0:
			why = fmt.Sprintf("N %d is not a multiple of %d", nn, Cols16Panel)
		case uses[b] != 1 || uses[s] != 1:
			why = "another node, or the graph, reads its weights or scales"
		case !columns(b, nb, 4) || !columns(s, nb, 1):
			why = "its weights or scales are not bytes it can reorder here"
		}
		if why != "" {
			if skipped == "" {
				skipped = fmt.Sprintf("node %s: %s", n.name, why)
			}
			continue
		}
		reorder(b, nb, 4)
		reorder(s, nb, 1)
		if nodes[i].raw, err = withIntAttr(n.raw, LayoutAttr, 1); err != nil {
			return done, skipped, err
		}
		done++
	}
	return done, skipped, nil
}
