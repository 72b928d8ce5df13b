package optimize

import (
	"fmt"
	"slices"

	"edgechat/onnx/proto"
)

// The attention rewrite: a Hugging Face/Optimum export computes each layer's attention with
// plain operators and grows the cache by present = Concat(past, new), so every step copies the
// whole cache. SharedKVAttention replaces each layer's
//
//	Concat(past_key_values.N.key, k) → present.N.key ─ repeat-kv ─ Transpose ─┐
//	q ─ scale ─────────────────────────────────────────────────── MatMul ─ scale ─ mask ─ Softmax
//	Concat(past_key_values.N.value, v) → present.N.value ─ repeat-kv ────────── MatMul ─ Transpose ─ Reshape → o_proj
//
// by one com.microsoft GroupQueryAttention node (no rotary inside: q and k arrive rotated),
// whose past and present may then share one buffer that it appends to in place. It rewrites
// only when every layer matches exactly; anything else leaves the attention as it was and says
// why in Report.AttentionSkipped. GroupQueryAttention masks causally and reads the cache
// length from seqlens_k, computed from attention_mask as (its sum − 1): it reproduces the
// original for a batch of one with an all-ones mask, which is how the decoders run; whether a
// real export computes exactly this is for the caller to check numerically.

// MetaAttention is the metadata key of a graph whose attention was rewritten; its value is
// the number of layers.
const MetaAttention = "edgechat.group_query_attention_layers"

const gqaPrefix = "edgechat_gqa"

// layerAttn is one matched layer.
type layerAttn struct {
	q, k, v          string // query [B,Hq,S,D] (rotated), new key and value rows [B,Hkv,S,D]
	pastK, pastV     string
	presentK, presV  string
	out              string // attention output [B,S,Hq·D], the o_proj input
	heads            int64  // query heads
	scale            float64
	mask             string
	matched          []int // the nodes it replaces
	last             int   // the node computing out: the GQA node goes there
	kHeads, headSize int64
	elemType         int64 // the cache's TensorProto type: 1 float32, 10 float16
}

// matchLayer matches layer l's attention, whose cache inputs are pastK and pastV with kvHeads
// heads of size d, of TensorProto type elemType.
func (v *attnView) matchLayer(pastK, pastV string, kvHeads, d, elemType int64) (*layerAttn, error) {
	a := &layerAttn{pastK: pastK, pastV: pastV, scale: 1, kHeads: kvHeads, headSize: d, elemType: elemType}
	v.headSize = d
	defer func() { v.headSize = 0 }()
	concat := func(past string) (newRows, present string, err error) {
		i, err := v.only(past, "Concat")
		if err != nil {
			return "", "", err
		}
		n := v.nodes[i]
		ax, ok, _ := intAttr(n.raw, "axis")
		if !ok || (ax != 2 && ax != -2) || len(n.inputs) != 2 || n.inputs[0] != past || !v.outputs[n.outputs[0]] {
			return "", "", fmt.Errorf("%s is not joined to the new rows on the sequence axis into a present output", past)
		}
		a.matched = append(a.matched, i)
		return n.inputs[1], n.outputs[0], nil
	}
	var err error
	if a.k, a.presentK, err = concat(pastK); err != nil {
		return nil, err
	}
	if a.v, a.presV, err = concat(pastV); err != nil {
		return nil, err
	}
	keys, repK, err := v.repeatKV(a, a.presentK, kvHeads, d)
	if err != nil {
		return nil, err
	}
	values, repV, err := v.repeatKV(a, a.presV, kvHeads, d)
	if err != nil {
		return nil, err
	}
	if repK != repV {
		return nil, fmt.Errorf("keys repeated %d times, values %d", repK, repV)
	}
	// Keys: Transpose to [B,H,D,T], perhaps scaled, into the score MatMul.
	t, err := v.onlyNode(keys, "Transpose")
	if err != nil {
		return nil, fmt.Errorf("the keys are not transposed for the scores: %v", err)
	}
	if !v.perm(t, 0, 1, 3, 2) || keys != a.presentK && v.outputs[keys] {
		return nil, fmt.Errorf("the keys are not transposed to [B,H,D,T] for the scores")
	}
	a.matched = append(a.matched, t)
	kt := v.nodes[t].outputs[0]
	if cs := v.consumers[kt]; len(cs) == 1 && !v.outputs[kt] {
		if f, ok := v.scaleBy(cs[0], kt); ok {
			a.scale *= f
			a.matched = append(a.matched, cs[0])
			kt = v.nodes[cs[0]].outputs[0]
		}
	}
	mm1, err := v.only(kt, "MatMul")
	if err != nil {
		return nil, fmt.Errorf("the transposed keys do not feed a score MatMul: %v", err)
	}
	if v.nodes[mm1].inputs[1] != kt {
		return nil, fmt.Errorf("the transposed keys are the first factor of the score MatMul")
	}
	a.matched = append(a.matched, mm1)
	// Queries: [B,Hq,S,D], perhaps scaled, perhaps folded to [B,Hkv,rep·S,D] when the keys
	// are not repeated.
	q := v.nodes[mm1].inputs[0]
	folded := false
	if i, ok := v.from(q, "Reshape"); ok && repK == 1 && v.reshapeTo(i, anyDim, kvHeads, anyDim, d) && len(v.consumers[q]) == 1 {
		folded = true
		a.matched = append(a.matched, i)
		q = v.nodes[i].inputs[0]
	}
	if i, ok := v.producer[q]; ok && len(v.consumers[q]) == 1 && !v.outputs[q] {
		n := v.nodes[i]
		for _, in := range n.inputs {
			if f, ok := v.scaleBy(i, in); ok {
				if _, isConst := v.scalar(in); !isConst {
					a.scale *= f
					a.matched = append(a.matched, i)
					q = in
					break
				}
			}
		}
	}
	a.q = q
	// Scores: perhaps scaled, masked, softmax.
	s := v.nodes[mm1].outputs[0]
	cs := v.consumers[s]
	if len(cs) != 1 || v.outputs[s] {
		return nil, fmt.Errorf("the scores feed %d nodes", len(cs))
	}
	if f, ok := v.scaleBy(cs[0], s); ok {
		a.scale *= f
		a.matched = append(a.matched, cs[0])
		s = v.nodes[cs[0]].outputs[0]
		if cs = v.consumers[s]; len(cs) != 1 || v.outputs[s] {
			return nil, fmt.Errorf("the scaled scores feed %d nodes", len(cs))
		}
	}
	mk := v.nodes[cs[0]]
	switch {
	case mk.op == "Add" && len(mk.inputs) == 2:
		a.mask = mk.inputs[0]
		if a.mask == s {
			a.mask = mk.inputs[1]
		}
	case mk.op == "Where" && len(mk.inputs) == 3 && mk.inputs[1] == s:
		if c, ok := v.scalar(mk.inputs[2]); !ok || c > -1e4 {
			return nil, fmt.Errorf("masked scores are set to %v, not a large negative constant", mk.inputs[2])
		}
		a.mask = mk.inputs[0]
	default:
		return nil, fmt.Errorf("the scores go to a %s node, not a mask (Add or Where)", mk.op)
	}
	if a.mask == s {
		return nil, fmt.Errorf("the scores are added to themselves")
	}
	a.matched = append(a.matched, cs[0])
	// Softmax, perhaps in float32 between Casts (eager attention's softmax(dtype=float32)),
	// which GroupQueryAttention's kernel computes in float32 too.
	scores := v.castThrough(a, mk.outputs[0])
	sm, err := v.only(scores, "Softmax")
	if err != nil {
		return nil, err
	}
	if ax, ok, _ := intAttr(v.nodes[sm].raw, "axis"); ok && ax != -1 && ax != 3 || !ok && v.opset < 13 {
		return nil, fmt.Errorf("softmax is not over the keys")
	}
	a.matched = append(a.matched, sm)
	probs := v.castThrough(a, v.nodes[sm].outputs[0])
	mm2, err := v.only(probs, "MatMul")
	if err != nil {
		return nil, fmt.Errorf("the probabilities do not multiply the values: %v", err)
	}
	if v.nodes[mm2].inputs[0] != probs || v.nodes[mm2].inputs[1] != values {
		return nil, fmt.Errorf("the probabilities do not multiply the values")
	}
	if values != a.presV && v.outputs[values] || len(v.consumers[values]) != 1 {
		return nil, fmt.Errorf("the values feed nodes outside the attention")
	}
	a.matched = append(a.matched, mm2)
	// Back to [B,S,Hq·D].
	o := v.nodes[mm2].outputs[0]
	if folded {
		r, err := v.only(o, "Reshape")
		if err != nil {
			return nil, err
		}
		sh, ok := v.shapeElems(v.nodes[r].inputs[1])
		if !ok || len(sh) != 4 || !sh[1].known || sh[1].v <= 0 || sh[1].v%kvHeads != 0 || !v.shapeMatches(v.nodes[r].inputs[1], anyDim, sh[1].v, anyDim, d) {
			return nil, fmt.Errorf("the folded heads are not unfolded to [batch, heads, seq, %d]", d)
		}
		a.heads = sh[1].v
		a.matched = append(a.matched, r)
		o = v.nodes[r].outputs[0]
	} else {
		a.heads = kvHeads * repK
	}
	tr, err := v.only(o, "Transpose")
	if err != nil {
		return nil, fmt.Errorf("the attention output is not transposed back: %v", err)
	}
	if !v.perm(tr, 0, 2, 1, 3) {
		return nil, fmt.Errorf("the attention output is not transposed back to [B,S,H,D]")
	}
	a.matched = append(a.matched, tr)
	r, err := v.only(v.nodes[tr].outputs[0], "Reshape")
	if err != nil {
		return nil, err
	}
	if !v.reshapeTo(r, anyDim, anyDim, a.heads*d) && !v.reshapeTo(r, anyDim, anyDim, -1) {
		return nil, fmt.Errorf("the attention output is not reshaped to [batch, seq, %d]", a.heads*d)
	}
	a.matched = append(a.matched, r)
	a.out, a.last = v.nodes[r].outputs[0], r
	return a, nil
}

// castThrough returns the output of a Cast to a float type that is t's only reader, or t.
func (v *attnView) castThrough(a *layerAttn, t string) string {
	i, err := v.only(t, "Cast")
	if err != nil {
		return t
	}
	if to, _, _ := intAttr(v.nodes[i].raw, "to"); to != 1 && to != 10 {
		return t
	}
	a.matched = append(a.matched, i)
	return v.nodes[i].outputs[0]
}

// repeatKV follows a present tensor [B,Hkv,T,D] through Hugging Face's repeat_kv
// (Unsqueeze at 2, Expand to [B,Hkv,rep,T,D], Reshape to [0,Hkv·rep,-1,D]) or none, and
// returns the tensor the attention reads and rep. Nothing else may read the present tensor
// but Shape nodes (rewriteAttention checks that none of them is left after the rewrite: the
// present tensor becomes the whole shared buffer).
func (v *attnView) repeatKV(a *layerAttn, present string, kvHeads, d int64) (string, int64, error) {
	var others []int
	for pass := 0; pass < 2; pass++ {
		others = others[:0]
		for _, c := range v.consumers[present] {
			if v.nodes[c].op != "Shape" {
				others = append(others, c)
			}
		}
		if len(others) != 1 {
			return "", 0, fmt.Errorf("%s feeds %d nodes besides Shape", present, len(others))
		}
		// A Cast to the cache's own type (an fp16 export's leftover) changes nothing.
		c := v.nodes[others[0]]
		if to, _, _ := intAttr(c.raw, "to"); pass > 0 || c.op != "Cast" || c.domain != "" || to != a.elemType {
			break
		}
		a.matched = append(a.matched, others[0])
		present = c.outputs[0]
	}
	u := others[0]
	if v.nodes[u].op != "Unsqueeze" {
		return present, 1, nil
	}
	if axes, ok := v.axesOf(u); !ok || !slices.Equal(axes, []int64{2}) {
		return "", 0, fmt.Errorf("%s is unsqueezed on an axis other than 2", present)
	}
	e, err := v.only(v.nodes[u].outputs[0], "Expand")
	if err != nil {
		return "", 0, err
	}
	// The Expand's shape: [B, Hkv, rep, T, D], rep a constant, the rest constants or read
	// from the present tensor's shape.
	sh, ok := v.shapeElems(v.nodes[e].inputs[1])
	if !ok || len(sh) != 5 || !sh[2].known || sh[2].v <= 0 || sh[1].known && sh[1].v != kvHeads || sh[4].known && sh[4].v != d {
		return "", 0, fmt.Errorf("the repeat of %s's heads expands to a shape this rewrite does not know", present)
	}
	rep := sh[2].v
	rs, err := v.only(v.nodes[e].outputs[0], "Reshape")
	if err != nil {
		return "", 0, err
	}
	if !v.reshapeTo(rs, anyDim, kvHeads*rep, anyDim, d) {
		return "", 0, fmt.Errorf("the repeated heads of %s are not reshaped to [0, %d, -1, %d]", present, kvHeads*rep, d)
	}
	a.matched = append(a.matched, u, e, rs)
	return v.nodes[rs].outputs[0], rep, nil
}

// maskRoot is the mask a layer's mask is sliced from (an export may cut the shared mask to
// the key length in every layer).
func (v *attnView) maskRoot(t string) string {
	for {
		i, ok := v.from(t, "Slice")
		if !ok {
			return t
		}
		t = v.nodes[i].inputs[0]
	}
}

// maskInputs checks that the mask depends on no graph input but attention_mask, input_ids and
// position_ids (shapes of anything aside): the causal, padding-only mask of an export, which
// GroupQueryAttention reproduces from seqlens_k.
func (v *attnView) maskInputs(mask string) error {
	seen := map[string]bool{}
	var walk func(t string) error
	walk = func(t string) error {
		if seen[t] {
			return nil
		}
		seen[t] = true
		if v.inputs[t] {
			switch t {
			case "attention_mask", "input_ids", "position_ids":
				return nil
			}
			return fmt.Errorf("the attention mask depends on %s", t)
		}
		i, ok := v.producer[t]
		if !ok {
			return nil // an initializer
		}
		n := v.nodes[i]
		if n.op == "Shape" || n.domain != "" && n.domain != "ai.onnx" {
			if n.op == "Shape" {
				return nil
			}
			return fmt.Errorf("the attention mask is computed by a %s:%s node", n.domain, n.op)
		}
		for _, in := range n.inputs {
			if in != "" {
				if err := walk(in); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(mask)
}

// attnResult is what rewriteAttention did: layers rewritten (or why none), and whether
// their GroupQueryAttention rotates queries and keys itself (with caches of rotaryRows
// positions) or why not.
type attnResult struct {
	layers        int
	skipped       string
	rotaryRows    int
	rotarySkipped string
}

// rewriteAttention replaces every layer's attention by GroupQueryAttention, or leaves the graph
// alone and says why not; with rotaryRows > 0 the attention also takes over the rotary
// embedding where it is recognised (see rope.go). It returns the new nodes and the
// initializers they need.
func rewriteAttention(nodes []node, gfs []field, info *proto.ModelInfo, rotaryRows int) (out []node, inits [][]byte, res attnResult) {
	v := newAttnView(nodes, gfs, info)
	if v.opset < 13 {
		return nil, nil, attnResult{skipped: fmt.Sprintf("opset %d; the rewrite writes opset-13 operators", v.opset)}
	}
	if _, ok := info.Input("attention_mask"); !ok {
		return nil, nil, attnResult{skipped: "the graph has no attention_mask input to derive the sequence lengths from"}
	}
	var layers []*layerAttn
	for l := 0; ; l++ {
		pk, okK := info.Input(fmt.Sprintf("past_key_values.%d.key", l))
		pv, okV := info.Input(fmt.Sprintf("past_key_values.%d.value", l))
		if !okK && !okV {
			break
		}
		if !okK || !okV || len(pk.Dims) != 4 || pk.Dims[1].Value <= 0 || pk.Dims[3].Value <= 0 {
			return nil, nil, attnResult{skipped: fmt.Sprintf("layer %d's cache inputs are not [batch, kv_heads, past, head_dim] pairs", l)}
		}
		if pk.ElemType != "float32" && pk.ElemType != "float16" || pv.ElemType != pk.ElemType {
			return nil, nil, attnResult{skipped: fmt.Sprintf("layer %d's cache is %s", l, pk.ElemType)}
		}
		if d := pk.Dims[3].Value; d%8 != 0 {
			return nil, nil, attnResult{skipped: fmt.Sprintf("head_dim %d: ONNX Runtime's GroupQueryAttention takes multiples of 8", d)}
		}
		elem := int64(1)
		if pk.ElemType == "float16" {
			elem = 10
		}
		a, err := v.matchLayer(pk.Name, pv.Name, pk.Dims[1].Value, pk.Dims[3].Value, elem)
		if err != nil {
			return nil, nil, attnResult{skipped: fmt.Sprintf("layer %d: %v", l, err)}
		}
		if len(layers) > 0 && v.maskRoot(a.mask) != v.maskRoot(layers[0].mask) {
			return nil, nil, attnResult{skipped: fmt.Sprintf("layer %d uses another mask than layer 0 (a sliding window?)", l)}
		}
		layers = append(layers, a)
	}
	if len(layers) == 0 {
		return nil, nil, attnResult{skipped: "no past_key_values.N.key inputs"}
	}
	if err := v.maskInputs(layers[0].mask); err != nil {
		return nil, nil, attnResult{skipped: err.Error()}
	}
	ropes, rotarySkipped := v.layerRopes(layers, rotaryRows)
	res = attnResult{layers: len(layers), rotarySkipped: rotarySkipped}
	p := gqaPrefix
	inits = [][]byte{int64Initializer(p+"/axis1", 1), int64Initializer(p+"/one", 1)}
	seqlens, total := p+"/seqlens_k", p+"/total_sequence_length"
	head := []node{
		mkNode(encodeNode(p+"/sum", "ReduceSum", []string{"attention_mask", p + "/axis1"}, []string{p + "/sum"}), withInt("keepdims", 0)),
		mkNode(encodeNode(p+"/sub", "Sub", []string{p + "/sum", p + "/one"}, []string{p + "/seqlens64"})),
		mkNode(encodeNode(p+"/seqlens", "Cast", []string{p + "/seqlens64"}, []string{seqlens}), withInt("to", 6)),
		mkNode(encodeNode(p+"/shape", "Shape", []string{"attention_mask"}, []string{p + "/total64"}), withInt("start", 1), withInt("end", 2)),
		mkNode(encodeNode(p+"/total", "Cast", []string{p + "/total64"}, []string{total}), withInt("to", 6)),
	}
	removed := map[int]bool{}
	added := map[int][]node{}
	shapes := map[string]bool{}
	flat := func(l int, t string, heads, d int64) (string, []node) {
		// [B,H,S,D] → [B,S,H·D]: the Reshape input before an export's head-split Transpose, or a
		// Transpose and Reshape.
		sh := fmt.Sprintf("%s/shape_%d", p, heads*d)
		if !shapes[sh] {
			shapes[sh] = true
			inits = append(inits, int64Initializer(sh, 0, 0, heads*d))
		}
		base := fmt.Sprintf("%s/%d/%s", p, l, t)
		if tr, ok := v.from(t, "Transpose"); ok && v.perm(tr, 0, 2, 1, 3) {
			bshd := v.nodes[tr].inputs[0]
			if r, ok := v.from(bshd, "Reshape"); ok && v.reshapeTo(r, anyDim, anyDim, heads, d) {
				return v.nodes[r].inputs[0], nil
			}
			// Whatever made it, the Transpose's input is [B,S,H,D]: merge its heads.
			return base + "/flat", []node{mkNode(encodeNode(base+"/reshape", "Reshape", []string{bshd, sh}, []string{base + "/flat"}))}
		}
		return base + "/flat", []node{
			mkNode(encodeNode(base+"/transpose", "Transpose", []string{t}, []string{base + "/bshd"}), withInts("perm", 0, 2, 1, 3)),
			mkNode(encodeNode(base+"/reshape", "Reshape", []string{base + "/bshd", sh}, []string{base + "/flat"})),
		}
	}
	gqaIn := []string{seqlens, total}
	gqaAttrs := []nodeAttr{}
	if ropes != nil {
		cosName, sinName := p+"/cos_cache", p+"/sin_cache"
		c, s := rotaryCaches(cosName, sinName, ropes.invFreq, ropes.scale, rotaryRows, layers[0].elemType)
		inits = append(inits, c, s)
		gqaIn = append(gqaIn, cosName, sinName)
		gqaAttrs = append(gqaAttrs, withInt("do_rotary", 1))
		res.rotaryRows = rotaryRows
	}
	for l, a := range layers {
		for _, i := range a.matched {
			removed[i] = true
		}
		qIn, kIn := a.q, a.k
		if ropes != nil {
			r := ropes.layers[l]
			qIn, kIn = r[0].x, r[1].x
			for _, i := range slices.Concat(r[0].nodes, r[1].nodes) {
				removed[i] = true
			}
		}
		q, nq := flat(l, qIn, a.heads, a.headSize)
		k, nk := flat(l, kIn, a.kHeads, a.headSize)
		val, nv := flat(l, a.v, a.kHeads, a.headSize)
		gqa := encodeNode(fmt.Sprintf("%s/%d/GroupQueryAttention", p, l), "GroupQueryAttention",
			slices.Concat([]string{q, k, val, a.pastK, a.pastV}, gqaIn), []string{a.out, a.presentK, a.presV})
		gqa = appendBytes(gqa, proto.FieldNodeDomain, []byte("com.microsoft"))
		g := mkNode(gqa, append([]nodeAttr{withInt("num_heads", a.heads), withInt("kv_num_heads", a.kHeads), withFloat("scale", float32(a.scale))}, gqaAttrs...)...)
		added[a.last] = slices.Concat(nq, nk, nv, []node{g})
	}
	out = slices.Clone(head)
	for i, n := range nodes {
		out = append(out, added[i]...)
		if !removed[i] {
			out = append(out, n)
		}
	}
	out = deadFree(out, v.outputs)
	// Nothing left may read what the rewrite removed, nor the present tensors, which become the
	// whole shared buffer.
	gone := map[string]bool{}
	for i := range removed {
		for _, o := range nodes[i].outputs {
			gone[o] = true
		}
	}
	// The past inputs become the whole shared buffer too: a graph that sizes them (positions
	// from the past length, as GPT-2 and Phi exports without position_ids compute them) would
	// read the buffer's length instead.
	past := map[string]bool{}
	for _, a := range layers {
		gone[a.presentK], gone[a.presV], gone[a.out] = true, true, false
		past[a.pastK], past[a.pastV] = true, true
	}
	for _, n := range out {
		if n.op == "GroupQueryAttention" && n.domain == "com.microsoft" {
			continue
		}
		for _, in := range n.inputs {
			switch {
			case gone[in]:
				return nil, nil, attnResult{skipped: fmt.Sprintf("a %s node outside the attention reads %s", n.op, in)}
			case past[in]:
				return nil, nil, attnResult{skipped: fmt.Sprintf("a %s node outside the attention reads the past %s, which becomes the whole shared buffer", n.op, in)}
			}
		}
	}
	return out, inits, res
}

// deadFree drops the nodes whose outputs nothing reads.
func deadFree(nodes []node, outputs map[string]bool) []node {
	need := map[string]bool{}
	for o := range outputs {
		need[o] = true
	}
	live := make([]bool, len(nodes))
	for i := len(nodes) - 1; i >= 0; i-- {
		for _, o := range nodes[i].outputs {
			if need[o] {
				live[i] = true
			}
		}
		if live[i] {
			for _, in := range nodes[i].inputs {
				need[in] = true
			}
		}
	}
	var out []node
	for i, n := range nodes {
		if live[i] {
			out = append(out, n)
		}
	}
	return out
}
