package optimize

import (
	"fmt"
	"strconv"

	"edgechat/onnx/proto"
)

// MatMulKernel moves com.microsoft MatMulNBits nodes to a custom operator that takes
// MatMulNBits' contract for 4-bit weights in blocks of 32 without zero points (EdgeChat's own
// int4 product, inference/ort/attnop): a node switches by its domain, and the model imports the
// domain (version 1). A session over such a copy must have the operator registered.
//
// Only nodes the kernel takes move: bits 4, block_size 32, float32 scales (and so float32
// activations: MatMulNBits' A, scales, bias and output share one type), no zero points and no
// g_idx (inputs 3 and 4 absent or empty; a bias, input 5, may be there), one output, no
// attributes but K, N, bits, block_size and accuracy_level, and a K and N the kernel takes
// (Shapes: the caller asks the kernel; this package does not know it). accuracy_level stays as it is:
// the float-compute twins of a check keep 0 and so check the kernel's float path. The zero
// value moves nothing.
type MatMulKernel struct {
	// Domain receives the nodes; "" moves none.
	Domain string
	// Shapes says which products the kernel takes; nil: every one.
	Shapes MatMulShapes
	// Cols16 writes the weights and scales of the products moved whose N is a multiple of 16
	// (and which no other node reads) in the kernel's layout 1, with attribute LayoutAttr 1
	// (cols16.go).
	Cols16 bool
}

// MatMulShapes says which products a kernel takes: TakesMatMul(K, N) for 4 bits in blocks of
// 32. Its dynamic type must be comparable (Options are compared) and is not part of a copy's
// cache key (MatMulKernel.String): a kernel that changes what it takes changes its domain or
// the rewrite's version.
type MatMulShapes interface {
	TakesMatMul(k, n int) bool
}

// String is the key of k in a copy's cache key: its domain.
func (k MatMulKernel) String() string {
	if k.Cols16 {
		return "{Domain:" + k.Domain + " Layout:1}"
	}
	return "{Domain:" + k.Domain + "}"
}

// Metadata keys of a copy whose products moved: the kernel's domain and the number of nodes.
const (
	MetaMatMulDomain = "edgechat.matmul_domain"
	MetaMatMulKernel = "edgechat.matmul_kernel_nodes"
)

// nbitsAllowed are the attributes a MatMulNBits node the kernel takes may have, with the value
// required (-1: any).
var nbitsAllowed = map[string]int64{"K": -1, "N": -1, "bits": 4, "block_size": 32, "accuracy_level": -1}

// elemFloat is TensorProto's data type of float32.
const elemFloat = 1

// matMulRefusal says why the kernel k does not take the com.microsoft MatMulNBits node n ("" when
// it does); types are the element types of the graph's initializers by name.
func matMulRefusal(n node, types map[string]uint64, k MatMulKernel) string {
	in := func(i int) string {
		if i < len(n.inputs) {
			return n.inputs[i]
		}
		return ""
	}
	switch {
	case len(n.inputs) < 3 || in(0) == "" || in(1) == "" || in(2) == "":
		return "it lacks its activations, weights or scales"
	case in(3) != "":
		return "it has zero points"
	case in(4) != "":
		return "it has g_idx"
	case len(n.inputs) > 6:
		return fmt.Sprintf("it has %d inputs", len(n.inputs))
	case len(n.outputs) != 1:
		return fmt.Sprintf("it has %d outputs", len(n.outputs))
	}
	attrs, err := nodeAttrs(n.raw)
	if err != nil {
		return err.Error()
	}
	for _, afs := range attrs {
		name := attrNameOf(afs)
		want, ok := nbitsAllowed[name]
		if !ok {
			return "it has attribute " + name
		}
		if v, _, _ := intAttr(n.raw, name); want >= 0 && v != want {
			return fmt.Sprintf("%s is %d, not %d", name, v, want)
		}
	}
	for _, name := range []string{"K", "N", "bits", "block_size"} {
		if _, ok, _ := intAttr(n.raw, name); !ok {
			return "it has no " + name
		}
	}
	if t, ok := types[in(2)]; !ok || t != elemFloat {
		return fmt.Sprintf("its scales %s are not a float32 initializer", in(2))
	}
	kv, _, _ := intAttr(n.raw, "K")
	nv, _, _ := intAttr(n.raw, "N")
	if k.Shapes != nil && !k.Shapes.TakesMatMul(int(kv), int(nv)) {
		return fmt.Sprintf("the kernel does not take K %d, N %d", kv, nv)
	}
	return ""
}

// moveMatMuls moves the com.microsoft MatMulNBits nodes k's kernel takes to its domain; it
// returns how many moved and, when some were left, why the first was.
func moveMatMuls(nodes []node, types map[string]uint64, k MatMulKernel) (moved int, skipped string) {
	for i, n := range nodes {
		if n.op != "MatMulNBits" || n.domain != "com.microsoft" {
			continue
		}
		if why := matMulRefusal(n, types, k); why != "" {
			if skipped == "" {
				skipped = fmt.Sprintf("node %s: %s", n.name, why)
			}
			continue
		}
		nodes[i] = withDomain(n, k.Domain)
		moved++
	}
	return moved, skipped
}

// initializerTypes are the element types of the graph's initializers (gfs) by name, with more
// (packMatMuls' new ones) added.
func initializerTypes(gfs []field, more map[string]uint64) map[string]uint64 {
	types := map[string]uint64{}
	for _, f := range gfs {
		if f.num != proto.FieldGraphInitializer {
			continue
		}
		if name, t, ok := tensorHeader(f.val); ok {
			types[name] = t
		}
	}
	for name, t := range more {
		types[name] = t
	}
	return types
}

// matMulMetadata are the metadata entries of a copy whose n products moved to domain.
func matMulMetadata(domain string, n int) []byte {
	return append(metadataEntry(MetaMatMulKernel, strconv.Itoa(n)), metadataEntry(MetaMatMulDomain, domain)...)
}
