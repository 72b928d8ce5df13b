package optimize

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// AttentionKernel moves GroupQueryAttention nodes to custom operators that take
// com.microsoft GroupQueryAttention's contract as the optimized copies use it (EdgeChat's
// own kernels, inference/ort/attnop): a node switches by its domain, and the model imports
// the domains (version 1). A session over such a copy must have the operators registered.
//
// Only nodes the kernels take move: those of the one attention shape the caller checked the
// kernels support (HeadSize, Heads, KVHeads: the caller asks the kernels, this package
// does not know them), a float32 or int8 cache on the graph's own past inputs, rotary
// inside (do_rotary 1, cos and sin caches, halves not interleaved), and no other inputs
// or attributes (no packed QKV, sliding window, softcap, attention bias, position ids).
// The zero value moves nothing.
type AttentionKernel struct {
	// Domain receives the nodes of a float32 cache, DomainInt8 those of an int8 one (k_scale
	// and v_scale inputs, ONNX Runtime's per-channel quantization); "" leaves them in
	// com.microsoft.
	Domain, DomainInt8 string
	// HeadSize, Heads and KVHeads are the shape the kernels take: a node moves only when its
	// num_heads and kv_num_heads attributes and its past key's last dimension are these.
	HeadSize, Heads, KVHeads int
	// QKNorm also gives each moved node its layer's per-head q/k RMS norms (Qwen3's q_norm and
	// k_norm) and the packed QKV product they read, dropping the Split, Reshapes and norms
	// between (see qknorm.go): 7 nodes a layer.
	QKNorm bool
}

// on says whether k moves any node.
func (k AttentionKernel) on() bool { return k.Domain != "" || k.DomainInt8 != "" }

// Metadata keys of a copy whose attention moved (MetaAttentionDomain, MetaAttentionDomainInt8:
// the domains of AttentionKernel, set even when no node of that cache type moved, so that
// QuantizeKV can move a float32 copy's nodes to the int8 domain).
const (
	MetaAttentionDomain     = "edgechat.attention_domain"
	MetaAttentionDomainInt8 = "edgechat.attention_domain_int8"
	// MetaAttentionKernel is the number of nodes that moved.
	MetaAttentionKernel = "edgechat.attention_kernel_nodes"
)

// gqaAllowed are the attributes a node the kernels take may have, with the values allowed
// (nil: any).
var gqaAllowed = map[string][]int64{
	"num_heads": nil, "kv_num_heads": nil, "scale": nil,
	"do_rotary": {1}, "rotary_interleaved": {0},
	"k_quant_type": nil, "v_quant_type": nil, "kv_cache_bit_width": {8},
}

// kernelRefusal says why the kernels k describes do not take the com.microsoft
// GroupQueryAttention node n of a graph whose inputs info lists ("" when they do), and
// whether its cache is int8.
func kernelRefusal(n node, info *proto.ModelInfo, k AttentionKernel) (why string, int8Cache bool) {
	in := func(i int) string {
		if i < len(n.inputs) {
			return n.inputs[i]
		}
		return ""
	}
	for _, i := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8} {
		if in(i) == "" {
			return fmt.Sprintf("input %d is missing (packed QKV, no cache or no rotary caches)", i), false
		}
	}
	for _, i := range []int{9, 10, 11} {
		if in(i) != "" {
			return fmt.Sprintf("it has input %d (position ids, attention bias or head sink)", i), false
		}
	}
	int8Cache = in(12) != "" || in(13) != ""
	if int8Cache && (in(12) == "" || in(13) == "") || len(n.inputs) > 14 {
		return "its cache scales are not k_scale and v_scale", false
	}
	if len(n.outputs) != 3 {
		return fmt.Sprintf("it has %d outputs, not output, present_key and present_value", len(n.outputs)), false
	}
	attrs, err := nodeAttrs(n.raw)
	if err != nil {
		return err.Error(), false
	}
	seen := map[string]bool{}
	for _, afs := range attrs {
		name := attrNameOf(afs)
		allowed, ok := gqaAllowed[name]
		if !ok {
			return "it has attribute " + name, false
		}
		seen[name] = true
		if allowed == nil {
			continue
		}
		v := int64(-1)
		for _, a := range afs {
			if a.num == proto.FieldAttrI && a.typ == protowire.VarintType {
				v = int64(a.v)
			}
		}
		if v != allowed[0] {
			return fmt.Sprintf("%s is %d", name, v), false
		}
	}
	if !seen["do_rotary"] {
		return "it does not rotate queries and keys itself", false
	}
	heads, _, _ := intAttr(n.raw, "num_heads")
	kvHeads, _, _ := intAttr(n.raw, "kv_num_heads")
	past, ok := info.Input(in(3))
	if !ok || len(past.Dims) != 4 {
		return fmt.Sprintf("its past key %s is not a graph input of four dimensions", in(3)), false
	}
	want := "float32"
	if int8Cache {
		want = "int8"
	}
	if past.ElemType != want {
		return fmt.Sprintf("its cache is %s", past.ElemType), false
	}
	if int8Cache {
		for _, q := range []string{"k_quant_type", "v_quant_type"} {
			if s := stringAttr(n.raw, q); s != "PER_CHANNEL" {
				return fmt.Sprintf("%s is %q, not PER_CHANNEL", q, s), false
			}
		}
	}
	if got := [3]int64{past.Dims[3].Value, heads, kvHeads}; got != [3]int64{int64(k.HeadSize), int64(k.Heads), int64(k.KVHeads)} {
		return fmt.Sprintf("head size %d, %d heads and %d KV heads, not the %d, %d and %d the kernels were asked for", got[0], got[1], got[2], k.HeadSize, k.Heads, k.KVHeads), false
	}
	return "", int8Cache
}

// moveAttention moves the com.microsoft GroupQueryAttention nodes k's kernels take to k's
// domains; it returns how many moved and, when some were left, why the first was.
func moveAttention(nodes []node, info *proto.ModelInfo, k AttentionKernel) (moved int, skipped string) {
	for i, n := range nodes {
		if n.op != "GroupQueryAttention" || n.domain != "com.microsoft" {
			continue
		}
		why, int8Cache := kernelRefusal(n, info, k)
		domain := k.Domain
		if int8Cache {
			domain = k.DomainInt8
		}
		if why == "" && domain == "" {
			why = "no kernel domain for its cache type"
		}
		if why != "" {
			if skipped == "" {
				skipped = fmt.Sprintf("node %s: %s", n.name, why)
			}
			continue
		}
		nodes[i] = withDomain(n, domain)
		moved++
	}
	return moved, skipped
}

// stringAttr reads a string attribute of a node ("" when absent).
func stringAttr(raw []byte, name string) string {
	attrs, err := nodeAttrs(raw)
	if err != nil {
		return ""
	}
	for _, afs := range attrs {
		if attrNameOf(afs) != name {
			continue
		}
		for _, a := range afs {
			if a.num == proto.FieldAttrS && a.typ == protowire.BytesType {
				return string(a.val)
			}
		}
	}
	return ""
}

// opsetImport is an opset import of domain at version 1.
func opsetImport(domain string) []byte {
	var o []byte
	o = appendBytes(o, proto.FieldOpsetDomain, []byte(domain))
	o = appendVarint(o, proto.FieldOpsetVersion, 1)
	return appendBytes(nil, proto.FieldModelOpset, o)
}

// domainImports are the opset imports (version 1) of the domains ds (each once; "" skipped)
// that the graph info does not import yet: the kernels' domains of a copy whose nodes moved.
func domainImports(info *proto.ModelInfo, ds ...string) []byte {
	var out []byte
	seen := map[string]bool{"": true}
	for _, o := range info.Opsets {
		seen[o.Domain] = true
	}
	for _, d := range ds {
		if !seen[d] {
			out = append(out, opsetImport(d)...)
			seen[d] = true
		}
	}
	return out
}

// attentionMetadata are the metadata entries of a copy whose n attention nodes moved to k's
// kernels.
func attentionMetadata(k AttentionKernel, n int) []byte {
	out := metadataEntry(MetaAttentionKernel, strconv.Itoa(n))
	out = append(out, metadataEntry(MetaAttentionDomain, k.Domain)...)
	return append(out, metadataEntry(MetaAttentionDomainInt8, k.DomainInt8)...)
}
