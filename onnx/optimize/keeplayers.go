package optimize

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// Cutting a decoder after its first layers, for the twins of a check.
//
// The check of the attention rewrite runs the graph and its rewrite through a short prompt
// and a few tokens; most of its time is ONNX Runtime preparing the weights of two sessions
// (prepacking MatMulNBits blocks), which at 28 layers is two loads of the whole model before
// the load that counts. The rewrite is the same in every layer, each matched on its own
// (attention.go), so the twins keep the first layers only: the LM head reads the residual
// stream entering layer n (no final norm: the same in both twins) and the later layers, their
// cache inputs and outputs and their weights are left out. Where the LM head is a 4-bit
// MatMulNBits writing the logits itself, it becomes an identity matrix: its vocabulary-wide
// weights were most of the rest (155M of Qwen3-0.6B's 600M), and the "logits" compared are
// then the residual stream itself, as wide as the model.

// norms are the operators an input norm may be before the projections of a layer whose
// first input is the residual stream (not the Skip… ones, which add it up themselves).
var norms = map[string]bool{"SimplifiedLayerNormalization": true, "LayerNormalization": true}

// keepLayers cuts the graph after its first n layers (see above). It returns the nodes and
// graph fields of the cut graph and how many layers it keeps, or the graph unchanged and why
// not.
func keepLayers(nodes []node, gfs []field, info *proto.ModelInfo, n int) ([]node, []field, [][]byte, int, string) {
	past := func(l int) string { return fmt.Sprintf("past_key_values.%d.key", l) }
	layers := 0
	for ; ; layers++ {
		if _, ok := info.Input(past(layers)); !ok {
			break
		}
	}
	if n <= 0 || layers <= n {
		return nodes, gfs, nil, layers, ""
	}
	v := newAttnView(nodes, gfs, info)
	hidden, ok := v.layerInput(past(n))
	if !ok {
		return nodes, gfs, nil, layers, fmt.Sprintf("layer %d's input (a norm before its projections) not found", n)
	}
	head := -1
	var after []int // the nodes from the head to the logits
	for cur := "logits"; head < 0; {
		i, ok := v.producer[cur]
		if !ok {
			return nodes, gfs, nil, layers, "no LM head found"
		}
		switch nodes[i].op {
		case "Reshape", "Cast", "Identity":
			cur = nodes[i].inputs[0]
			after = append(after, i)
		case "MatMul", "MatMulNBits", "Gemm":
			head = i
		default:
			return nodes, gfs, nil, layers, fmt.Sprintf("logits come from a %s node", nodes[i].op)
		}
	}
	nodes = append([]node(nil), nodes...)
	var inits [][]byte
	var logits []byte // the logits' new declaration, with the identity head
	width, ok, _ := intAttr(nodes[head].raw, "K")
	if out, _ := info.Output("logits"); nodes[head].op == "MatMulNBits" && ok && width > 0 && width <= 1<<14 && out.ElemType == "float32" {
		eye := make([]float32, width*width)
		for i := range width {
			eye[i*width+i] = 1
		}
		name := keepLayersPrefix + "/eye"
		inits = append(inits, floatInitializer(name, []int64{width, width}, eye, tensorFloat))
		nodes[head] = mkNode(encodeNode(keepLayersPrefix+"/head", "MatMul", []string{hidden, name}, []string{"logits"}))
		logits = logitsInfo(width)
		for _, i := range after { // left to deadFree: they computed the logits from the head
			nodes[i].outputs = []string{keepLayersPrefix + "/unused"}
		}
	} else if err := rewire(&nodes[head], 0, hidden); err != nil {
		return nodes, gfs, nil, layers, err.Error()
	}
	// The graph inputs of layers n and later: their caches.
	cut := map[string]bool{}
	for _, x := range info.Inputs {
		for l := n; l < layers; l++ {
			if x.Name == past(l) || x.Name == fmt.Sprintf("past_key_values.%d.value", l) {
				cut[x.Name] = true
			}
		}
	}
	v = newAttnView(nodes, gfs, info)
	keep := map[string]bool{}
	for _, x := range info.Outputs {
		if !v.reaches(x.Name, cut) {
			keep[x.Name] = true
		}
	}
	if !keep["logits"] {
		return nodes, gfs, nil, layers, "the logits still read a later layer's cache"
	}
	nodes = deadFree(nodes, keep)
	used := map[string]bool{}
	for _, nd := range nodes {
		if nd.op == "If" || nd.op == "Loop" || nd.op == "Scan" {
			return nodes, gfs, nil, layers, nd.op + " node: its subgraphs may read any weight"
		}
		for _, in := range nd.inputs {
			used[in] = true
		}
	}
	var out []field
	for _, f := range gfs {
		switch f.num {
		case proto.FieldGraphInput, proto.FieldGraphOutput:
			name := valueName(f.val)
			if cut[name] || f.num == proto.FieldGraphOutput && !keep[name] {
				continue
			}
			if name == "logits" && f.num == proto.FieldGraphOutput && logits != nil {
				f = field{num: f.num, typ: f.typ, raw: appendBytes(nil, proto.FieldGraphOutput, logits), val: logits}
			}
		case proto.FieldGraphInitializer:
			if name, _, ok := tensorHeader(f.val); ok && !used[name] {
				continue
			}
		case fieldGraphValueInfo: // shapes of tensors that may be gone; optional
			continue
		}
		out = append(out, f)
	}
	return nodes, out, inits, n, ""
}

// keepLayersPrefix names what keepLayers adds.
const keepLayersPrefix = "edgechat_keep_layers"

// logitsInfo declares logits as float32 [batch_size, sequence_length, width].
func logitsInfo(width int64) []byte {
	var shape []byte
	for _, p := range []string{"batch_size", "sequence_length"} {
		shape = appendBytes(shape, proto.FieldShapeDim, appendBytes(nil, proto.FieldDimParam, []byte(p)))
	}
	shape = appendBytes(shape, proto.FieldShapeDim, appendVarint(nil, proto.FieldDimValue, uint64(width)))
	var tt []byte
	tt = appendVarint(tt, proto.FieldTensorElemType, tensorFloat)
	tt = appendBytes(tt, proto.FieldTensorShape, shape)
	vi := appendBytes(nil, proto.FieldValueName, []byte("logits"))
	return appendBytes(vi, proto.FieldValueType, appendBytes(nil, proto.FieldTypeTensor, tt))
}

// fieldGraphValueInfo is GraphProto.value_info.
const fieldGraphValueInfo = 13

// valueName reads a ValueInfoProto's name.
func valueName(b []byte) string {
	fs, err := fields(b)
	if err != nil {
		return ""
	}
	for _, f := range fs {
		if f.num == proto.FieldValueName && f.typ == protowire.BytesType {
			return string(f.val)
		}
	}
	return ""
}

// layerInput finds the residual stream entering the layer whose key cache input is pastKey:
// the input of the norm that feeds a projection (MatMul or MatMulNBits) above the nodes
// reading the cache, nearest first.
func (v *attnView) layerInput(pastKey string) (string, bool) {
	var queue []int
	seen := map[int]bool{}
	for _, c := range v.consumers[pastKey] {
		queue, seen[c] = append(queue, c), true
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		nd := v.nodes[i]
		if (nd.op == "MatMul" || nd.op == "MatMulNBits") && len(nd.inputs) > 0 {
			if p, ok := v.producer[nd.inputs[0]]; ok && norms[v.nodes[p].op] && len(v.nodes[p].inputs) > 0 {
				return v.nodes[p].inputs[0], true
			}
		}
		for _, in := range nd.inputs {
			if p, ok := v.producer[in]; ok && !seen[p] {
				queue, seen[p] = append(queue, p), true
			}
		}
	}
	return "", false
}

// reaches says whether tensor t is computed from any of the graph inputs in from.
func (v *attnView) reaches(t string, from map[string]bool) bool {
	seen := map[string]bool{}
	stack := []string{t}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if from[t] {
			return true
		}
		if seen[t] {
			continue
		}
		seen[t] = true
		if i, ok := v.producer[t]; ok {
			stack = append(stack, v.nodes[i].inputs...)
		}
	}
	return false
}
