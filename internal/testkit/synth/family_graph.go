package synth

import (
	"fmt"
	"math"
	"path/filepath"

	"edgechat/onnx/proto"
)

// familySpec is the I/O of a family model: Optimum's names, or the older past.N ones.
func familySpec(o Options) decoderSpec {
	s := hfSpec(o)
	if o.PastNames == PastDotted {
		s.past = func(l int, kind string) string { return fmt.Sprintf("past.%d.%s", l, kind) }
	}
	return s
}

// familyIO declares a family model's inputs and outputs (position_ids only where the export
// has it).
func familyIO(o Options, s decoderSpec) (in, out []proto.ValueInfo) {
	in, out = s.io(o)
	if !o.hasPositionIDs() {
		in = append(in[:2], in[3:]...)
	}
	return in, out
}

// buildFamily builds a family model's forward pass with a KV cache, as its export computes
// it; merged (o.Merged) it is Optimum's decoder_model_merged: an If on use_cache_branch
// between the pass with past and the one without.
func buildFamily(o Options, w *FamilyWeights) *proto.Model {
	s := familySpec(o)
	in, out := familyIO(o, s)
	if !o.Merged {
		g := newGraph()
		g.familyForward(o, w, s, true)
		m := g.model("main_graph", in, out, false)
		nameNodes(m, o.NodeNames)
		return m
	}
	return buildMerged(o, w, s, in, out)
}

// familyForward adds the forward pass: logits and each layer's present, from the past when
// withPast (else from the new rows alone, the first run of a merged decoder).
func (g *graph) familyForward(o Options, w *FamilyWeights, s decoderSpec, withPast bool) {
	a, n := o.Family.arch(), familyNames(o.Family)
	x := g.op("Gather", []string{g.fw(w, n.embed), "input_ids"})
	pos := g.familyPositions(o, s, withPast)
	if a.learnedPos {
		if a.posOffset != 0 {
			pos = g.add(pos, g.scalarI64(int64(a.posOffset)))
		}
		x = g.add(x, g.op("Gather", []string{g.fw(w, n.pos), pos}))
	}
	var cos, sin string
	if a.rotaryPct > 0 {
		cos, sin = g.partialRotaryTables(o, pos)
	}
	global, local := g.familyMasks(a.window)
	for l := range o.Layers {
		p := fmt.Sprintf(n.layer, l)
		mask := global
		if a.window > 0 && l%2 == 1 {
			mask = local
		}
		h := g.layerNorm(x, w, p+n.ln1, a.eps)
		att := g.mhAttention(h, l, o, w, s, withPast, cos, sin, mask)
		switch {
		case a.parallel:
			h2 := h
			if !a.sharedNorm {
				h2 = g.layerNorm(x, w, p+n.ln2, a.eps)
			}
			x = g.add(g.add(x, att), g.familyMLP(h2, p, o, w))
		default:
			x = g.add(x, att)
			x = g.add(x, g.familyMLP(g.layerNorm(x, w, p+n.ln2, a.eps), p, o, w))
		}
	}
	x = g.layerNorm(x, w, n.final, a.eps)
	flat := g.reshape(x, -1, int64(o.Hidden))
	var logits string
	if w.tied(o) {
		logits = g.op("Gemm", []string{flat, g.fw(w, n.embed)}, proto.IntAttr("transB", 1))
	} else {
		ins := []string{flat, g.fw(w, n.head+".weight")}
		if a.headBias {
			ins = append(ins, g.fw(w, n.head+".bias"))
		}
		logits = g.op("Gemm", ins)
	}
	bs := g.op("Shape", []string{"input_ids"}, proto.IntAttr("start", 0), proto.IntAttr("end", 2))
	shape := g.op("Concat", []string{bs, g.i64s(int64(o.Vocab))}, proto.IntAttr("axis", 0))
	g.op("Reshape", []string{logits, shape})
	g.rename("logits")
}

// fw adds a family weight as an initializer once and returns its name.
func (g *graph) fw(w *FamilyWeights, name string) string {
	key := "w:" + name
	if _, ok := g.consts[key]; !ok {
		data, ok := w.t[name]
		if !ok {
			panic("synth: no weight " + name)
		}
		g.consts[key] = g.weight(name, data, w.dims[name]...)
	}
	return name
}

// familyPositions is the int64 positions [B,S] of the new tokens: position_ids where the
// graph takes it; OPT's from attention_mask (cumsum(mask)·mask − 1, the last S); else the
// past length on (as transformers' cache_position).
func (g *graph) familyPositions(o Options, s decoderSpec, withPast bool) string {
	a := o.Family.arch()
	dim := func(x string, i int64) string {
		return g.op("Shape", []string{x}, proto.IntAttr("start", i), proto.IntAttr("end", i+1))
	}
	switch {
	case o.hasPositionIDs():
		return "position_ids"
	case a.posFromMask:
		cum := g.op("CumSum", []string{"attention_mask", g.scalarI64(1)})
		pos := g.op("Sub", []string{g.mul(cum, "attention_mask"), g.scalarI64(1)})
		start := g.op("Sub", []string{dim("attention_mask", 1), dim("input_ids", 1)})
		return g.op("Slice", []string{pos, start, g.i64s(math.MaxInt64), g.i64s(1)})
	}
	past := g.i64s(0)
	if withPast {
		past = dim(s.past(0, "key"), 2)
	}
	sq := func(x string) string { return g.op("Squeeze", []string{x, g.i64s(0)}) }
	p := sq(past)
	end := g.add(p, sq(dim("input_ids", 1)))
	return g.unsqueeze(g.op("Range", []string{p, end, g.scalarI64(1)}), 0)
}

// partialRotaryTables are cos and sin [B,1,S,rot] at positions pos for the rotated dims.
func (g *graph) partialRotaryTables(o Options, pos string) (cos, sin string) {
	rot := o.rotaryDims()
	inv := make([]float32, rot/2)
	for i := range inv {
		inv[i] = float32(1 / math.Pow(o.RopeTheta, float64(2*i)/float64(rot)))
	}
	const name = "rotary_emb.inv_freq"
	if _, ok := g.consts["w:"+name]; !ok { // once for both branches of a merged decoder
		g.consts["w:"+name] = g.weight(name, inv, int64(len(inv)))
	}
	freqs := g.mul(g.unsqueeze(g.cast(pos, proto.Float), 2), name)
	emb := g.op("Concat", []string{freqs, freqs}, proto.IntAttr("axis", -1))
	return g.unsqueeze(g.op("Cos", []string{emb}), 1), g.unsqueeze(g.op("Sin", []string{emb}), 1)
}

// familyMasks are the boolean masks [B,1,S,T] of allowed (query, key) pairs: causal and not
// padding; local also drops keys window or more positions back (GPT-Neo), "" without one.
func (g *graph) familyMasks(window int) (global, local string) {
	two := func(a, b string) []string { return []string{a, b} }
	dim1 := func(x string) string {
		sh := g.op("Shape", []string{x}, proto.IntAttr("start", 1), proto.IntAttr("end", 2))
		return g.op("Squeeze", two(sh, g.i64s(0)))
	}
	s, t := dim1("input_ids"), dim1("attention_mask")
	keys := g.op("Range", []string{g.scalarI64(0), t, g.scalarI64(1)})
	queries := g.unsqueeze(g.op("Range", []string{g.op("Sub", two(t, s)), t, g.scalarI64(1)}), 1)
	pad := g.unsqueeze(g.cast("attention_mask", proto.Bool), 1, 2)
	global = g.op("And", two(g.op("LessOrEqual", two(keys, queries)), pad))
	if window > 0 {
		near := g.op("Greater", two(keys, g.op("Sub", two(queries, g.scalarI64(int64(window))))))
		local = g.op("And", two(global, near))
	}
	return global, local
}

// layerNorm is LayerNorm with weight and bias over the last axis.
func (g *graph) layerNorm(x string, w *FamilyWeights, name string, eps float64) string {
	return g.op("LayerNormalization", []string{x, g.fw(w, name+".weight"), g.fw(w, name+".bias")},
		proto.IntAttr("axis", -1), proto.FloatAttr("epsilon", float32(eps)))
}

// dense is x·W (+ b when the layer has a bias).
func (g *graph) dense(x string, w *FamilyWeights, name string) string {
	y := g.matmul(x, g.fw(w, name+".weight"))
	if _, ok := w.t[name+".bias"]; ok {
		y = g.add(y, g.fw(w, name+".bias"))
	}
	return y
}

// familyMLP is fc2(act(fc1(x))).
func (g *graph) familyMLP(x, p string, o Options, w *FamilyWeights) string {
	n := familyNames(o.Family)
	h := g.dense(x, w, p+n.fc1)
	switch o.Family.arch().act {
	case "relu":
		h = g.op("Relu", []string{h})
	case "gelu": // exact: 0.5·x·(1 + erf(x/√2))
		e := g.op("Erf", []string{g.mul(h, g.scalar(float32(1/math.Sqrt2)))})
		h = g.mul(g.mul(h, g.scalar(0.5)), g.add(e, g.scalar(1)))
	default: // gelu_new: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
		cube := g.mul(g.mul(h, h), h)
		inner := g.mul(g.add(h, g.mul(cube, g.scalar(0.044715))), g.scalar(float32(math.Sqrt(2/math.Pi))))
		h = g.mul(g.mul(h, g.scalar(0.5)), g.add(g.op("Tanh", []string{inner}), g.scalar(1)))
	}
	return g.dense(h, w, p+n.fc2)
}

// mhAttention is multi-head self-attention of layer l on normed input x [B,S,H].
func (g *graph) mhAttention(x string, l int, o Options, w *FamilyWeights, s decoderSpec, withPast bool, cos, sin, mask string) string {
	a, n := o.Family.arch(), familyNames(o.Family)
	p := fmt.Sprintf(n.layer, l)
	nh, hd := int64(o.Heads), int64(o.HeadDim)
	toHeads := func(y string) string { return g.transpose(g.reshape(y, 0, 0, nh, hd), 0, 2, 1, 3) }
	var q, k, v string
	switch a.fused {
	case "blocks": // [q | k | v] along the features
		qkv := g.opN("Split", 3, []string{g.dense(x, w, p+n.qkv), g.i64s(nh*hd, nh*hd, nh*hd)}, proto.IntAttr("axis", -1))
		q, k, v = toHeads(qkv[0]), toHeads(qkv[1]), toHeads(qkv[2])
	case "heads": // per head [q k v]: view [B,S,nh,3·hd]
		qkv := g.opN("Split", 3, []string{g.reshape(g.dense(x, w, p+n.qkv), 0, 0, nh, 3*hd), g.i64s(hd, hd, hd)}, proto.IntAttr("axis", -1))
		q, k, v = g.transpose(qkv[0], 0, 2, 1, 3), g.transpose(qkv[1], 0, 2, 1, 3), g.transpose(qkv[2], 0, 2, 1, 3)
	default:
		q, k, v = toHeads(g.dense(x, w, p+n.q)), toHeads(g.dense(x, w, p+n.k)), toHeads(g.dense(x, w, p+n.v))
	}
	if cos != "" {
		q, k = g.partialRope(q, cos, sin, o), g.partialRope(k, cos, sin, o)
	}
	keys := g.familyCache(k, s.past(l, "key"), s.present(l, "key"), withPast)
	values := g.familyCache(v, s.past(l, "value"), s.present(l, "value"), withPast)
	scores := g.matmul(q, g.transpose(keys, 0, 1, 3, 2))
	if !a.unscaled {
		scores = g.mul(scores, g.scalar(float32(1/math.Sqrt(float64(hd)))))
	}
	scores = g.op("Where", []string{mask, scores, g.scalar(-1e9)})
	probs := g.op("Softmax", []string{scores}, proto.IntAttr("axis", -1))
	att := g.reshape(g.transpose(g.matmul(probs, values), 0, 2, 1, 3), 0, 0, nh*hd)
	return g.dense(att, w, p+n.o)
}

// partialRope rotates the first rot dims of x [B,nh,S,hd] (rotate_half style) and keeps the
// rest.
func (g *graph) partialRope(x, cos, sin string, o Options) string {
	rot := int64(o.rotaryDims())
	parts := g.opN("Split", 2, []string{x, g.i64s(rot, int64(o.HeadDim)-rot)}, proto.IntAttr("axis", -1))
	return g.op("Concat", []string{g.rope(parts[0], cos, sin), parts[1]}, proto.IntAttr("axis", -1))
}

// familyCache joins the new rows to the past (or takes them alone) and declares present.
func (g *graph) familyCache(x, past, present string, withPast bool) string {
	if withPast {
		g.op("Concat", []string{past, x}, proto.IntAttr("axis", 2))
	} else {
		g.op("Identity", []string{x})
	}
	return g.rename(present)
}

// FamilyModelFile is where Write puts a family model's graph in its folder.
func FamilyModelFile(o Options) string {
	if o.Merged {
		return filepath.Join("onnx", "decoder_model_merged.onnx")
	}
	return filepath.Join("onnx", "model.onnx")
}

// writeFamily writes a family model's graph, config.json and generation_config.json.
func writeFamily(dir string, o Options) error {
	return writeFamilyFolder(dir, o, newFamilyWeights(o), nil)
}

// buildMerged builds Optimum's merged decoder: If(use_cache_branch) runs the forward pass
// with past (then) or without it (else, the past inputs unread). As Optimum's merge leaves
// them, the weights the branches share are the main graph's initializers and each branch
// keeps its own constants.
func buildMerged(o Options, w *FamilyWeights, s decoderSpec, in, out []proto.ValueInfo) *proto.Model {
	main := newGraph()
	shared := map[string]bool{}
	branch := func(prefix string, withPast bool) *proto.Graph {
		b := &graph{consts: map[string]string{}, prefix: prefix}
		b.familyForward(o, w, s, withPast)
		var own []*proto.Tensor
		for _, t := range b.inits {
			_, weight := w.t[t.Name]
			switch {
			case !weight && t.Name != "rotary_emb.inv_freq":
				own = append(own, t)
			case !shared[t.Name]:
				shared[t.Name] = true
				main.inits = append(main.inits, t)
			}
		}
		outs := make([]proto.ValueInfo, len(out))
		for i, v := range out {
			outs[i] = proto.ValueInfo{Name: prefix + v.Name, Type: v.Type, Dims: v.Dims}
		}
		return &proto.Graph{Name: prefix + "branch", Nodes: b.nodes, Outputs: outs, Initializers: own}
	}
	then, els := branch("with_past/", true), branch("no_past/", false)
	names := make([]string, len(out))
	for i, v := range out {
		names[i] = v.Name
	}
	cond := main.op("Squeeze", []string{"use_cache_branch"})
	main.nodes = append(main.nodes, proto.Node{Name: "/optimum/If", OpType: "If", Inputs: []string{cond}, Outputs: names,
		Attrs: []proto.Attr{proto.GraphAttr("then_branch", then), proto.GraphAttr("else_branch", els)}})
	in = append(in, proto.ValueInfo{Name: "use_cache_branch", Type: proto.Bool, Dims: proto.Dims(1)})
	m := main.model("main_graph", in, out, false)
	nameNodes(m, o.NodeNames)
	return m
}
