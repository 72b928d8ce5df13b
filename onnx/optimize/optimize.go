// Package optimize writes faster copies of decoder graphs, never touching the user's files:
// MatMulNBits at accuracy level 4 (ONNX Runtime's int8 compute path) where a file leaves it
// unset, an LM head that computes logits only for the rows a decoder uses (and the last
// layer after attention only for those rows), each RMSNorm as one node (with the residual
// add before it), the products of one input (a layer's Q, K and V; gate and up) as one
// MatMulNBits, and GroupQueryAttention in place of an export's concatenating attention,
// so that past and present can share one KV buffer. Optimum's merged decoders are first
// made plain graphs (their with-past branch), so that these rewrites apply to them too.
package optimize

import (
	"bytes"
	"math"
	"slices"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// Options choose the rewrites.
type Options struct {
	// AccuracyLevel, when > 0, is set on every MatMulNBits node whose level is lower or unset,
	// except nodes with zero points: ONNX Runtime's AVX2 one-row int8 kernel mishandles
	// asymmetric 4-bit weights (issue #29853), so one-row decoding and k-row verification
	// could disagree there.
	AccuracyLevel int64
	// FloatCompute sets every MatMulNBits node to accuracy level 0 (float32 compute), zero
	// points or not, instead (AccuracyLevel must then be 0). A check of a rewrite that is exact
	// in float32 uses such twins: with int8 compute, an ulp of difference can move an
	// activation by a whole quantization step, and 28 layers amplify that to percents of the
	// logits, hiding whether the rewrite itself is right.
	FloatCompute bool
	// LastRows computes the LM head for the last row only (or the last logits_to_keep rows
	// with KeepInput): prefill logits become [batch, rows, vocab] instead of one row per token.
	LastRows bool
	// KeepInput adds an int64 input logits_to_keep of shape [1]: how many of the last rows get
	// logits (1 in plain decoding, k+1 when verifying k drafted tokens).
	KeepInput bool
	// FuseRMSNorm writes each float32 RMSNorm of six nodes as one SimplifiedLayerNormalization
	// (see rmsnorm.go).
	FuseRMSNorm bool
	// FuseSkipNorm writes each residual Add and the SimplifiedLayerNormalization reading its
	// sum (FuseRMSNorm's or the graph's own) as one com.microsoft
	// SkipSimplifiedLayerNormalization (see skipnorm.go).
	FuseSkipNorm bool
	// LastLayerRows (with LastRows) also computes the last layer after attention (output
	// projection, MLP, norms) for those rows only, where that part is recognised (see
	// lastlayer.go); Report.LastLayerSkipped says why not otherwise.
	LastLayerRows bool
	// SharedKVAttention replaces every layer's attention of a Hugging Face/Optimum export
	// (present = Concat(past, new), repeat-kv, scores, mask, softmax) by com.microsoft
	// GroupQueryAttention, which appends in place when past and present are one buffer. Only
	// an exactly recognised pattern in every layer is rewritten (see attention.go); the result
	// matches the original for a batch of one with an all-ones attention_mask, and should be
	// checked numerically before use.
	SharedKVAttention bool
	// RotaryRows (with SharedKVAttention), when > 0, lets GroupQueryAttention rotate the
	// queries and keys itself where every layer's rotary embedding is recognised (see
	// rope.go), from caches of this many positions: the KV cache must not hold more (the
	// copy says how many in its MetaRotaryRows metadata).
	RotaryRows int
	// FusePackedQKV writes each three MatMulNBits nodes reading one tensor (a layer's Q, K and
	// V projections) as one over their weights concatenated along N and a Split (see
	// packed.go); FuseGateUp does so for pairs (a gated MLP's gate and up projections).
	FusePackedQKV bool
	FuseGateUp    bool
	// KeepLayers, when > 0, cuts the graph after its first KeepLayers layers, the LM head
	// reading the residual stream entering the next one (see keeplayers.go): the twins of a
	// check of the rewrites, which need not load the whole model. Report.KeptLayers says how
	// many layers the copy has, KeepLayersSkipped why it has them all.
	KeepLayers int
	// AttentionKernel, when it names a domain, moves the com.microsoft GroupQueryAttention
	// nodes its kernels take (SharedKVAttention's, or the graph's own) to its domains, last
	// (see attnkernel.go); Report.AttentionKernelNodes says how many moved.
	AttentionKernel AttentionKernel
	// MatMulKernel, when it names a domain, moves the com.microsoft MatMulNBits nodes its
	// kernel takes to its domain, last (see matmulkernel.go); Report.MatMulKernelNodes says
	// how many moved.
	MatMulKernel MatMulKernel
	// FuseSwiGLU (with MatMulKernel) folds each gated MLP's SiLU(gate)·up and the Split of its
	// packed gate+up into the down projection moved to MatMulKernel's domain, which then reads
	// gate | up whole (see swiglu.go); Report.SwiGLU says how many.
	FuseSwiGLU bool
	// FusePreNorm (with MatMulKernel) folds each RMS norm (with its residual add: FuseSkipNorm's
	// SkipSimplifiedLayerNormalization, or a plain SimplifiedLayerNormalization) that only one
	// product moved to MatMulKernel's domain reads into that product (see prenorm.go);
	// Report.PreNorm says how many.
	FusePreNorm bool
}

// Metadata keys the rewritten model carries.
const (
	// MetaLogitsRows is "last" (one row) or KeepInputName (as many as that input says).
	MetaLogitsRows = "edgechat.logits_rows"
	// MetaAccuracyLevel is the accuracy level set on MatMulNBits nodes.
	MetaAccuracyLevel = "edgechat.matmulnbits_accuracy_level"
	// KeepInputName is the input KeepInput adds.
	KeepInputName = "logits_to_keep"
	// MetaKeepNone is "1" on a copy whose logits_to_keep may be 0: a prefill run before the
	// prompt's last one then skips the LM head (and, with LastLayerRows, the last layer's
	// rows after attention). A published graph's logits_to_keep of 0 means every row, so only
	// copies carrying this key get 0.
	MetaKeepNone = "edgechat.logits_keep_none"
)

// Report says what a rewrite changed.
type Report struct {
	AccuracyLevelSet int    // MatMulNBits nodes whose level was raised
	ZeroPointsKept   int    // MatMulNBits nodes with zero points, left at their level
	LMHead           string // the node now fed the last rows only ("" when LastRows is off)
	// AttentionLayers is how many layers now use GroupQueryAttention; AttentionSkipped says
	// why SharedKVAttention left the graph's attention as it was.
	AttentionLayers  int
	AttentionSkipped string
	// RotaryRows is the positions of the rotary caches when the attention rotates queries and
	// keys itself; RotarySkipped says why not (with RotaryRows asked for).
	RotaryRows    int
	RotarySkipped string
	// RMSNorms is how many RMSNorms FuseRMSNorm wrote as one node.
	RMSNorms int
	// SkipNorms is how many residual Adds FuseSkipNorm fused into the norm after them.
	SkipNorms int
	// PackedQKV and PackedGateUp are how many groups of three and two MatMulNBits nodes
	// FusePackedQKV and FuseGateUp wrote as one.
	PackedQKV    int
	PackedGateUp int
	// LastLayerNodes is how many nodes after the last attention now see the kept rows only;
	// LastLayerSkipped says why LastLayerRows pruned none.
	LastLayerNodes   int
	LastLayerSkipped string
	// Unmerged: the graph was Optimum's merged decoder, now its with-past branch in line
	// (see unmerge.go); UnmergeSkipped says why a merged decoder was left as it was.
	Unmerged       bool
	UnmergeSkipped string
	// KeptLayers is the copy's layers with KeepLayers; KeepLayersSkipped says why it could
	// not cut the graph.
	KeptLayers        int
	KeepLayersSkipped string
	// AttentionKernelNodes is how many GroupQueryAttention nodes AttentionKernel moved to its
	// domains; AttentionKernelSkipped says why the first node left was not moved.
	AttentionKernelNodes   int
	AttentionKernelSkipped string
	// MatMulKernelNodes is how many MatMulNBits nodes MatMulKernel moved to its domain;
	// MatMulKernelSkipped says why the first node left was not moved.
	MatMulKernelNodes   int
	MatMulKernelSkipped string
	// Cols16 is how many of those products MatMulKernel.Cols16 wrote in the kernel's layout 1;
	// Cols16Skipped says why the first left was not.
	Cols16        int
	Cols16Skipped string
	// QKNormFolded is how many of those nodes took their layer's q/k norms and packed QKV
	// (AttentionKernel.QKNorm, see qknorm.go); QKNormSkipped says why the first node left did not.
	QKNormFolded  int
	QKNormSkipped string
	// SwiGLU is how many down projections FuseSwiGLU fused with their activation;
	// SwiGLUSkipped says why the first left (one reading a Mul) was not.
	SwiGLU        int
	SwiGLUSkipped string
	// PreNorm is how many products FusePreNorm fused with the norm they read; PreNormSkipped
	// says why the first norm left that a kernel product reads was not.
	PreNorm        int
	PreNormSkipped string
}

// Rewrite returns the model src with o's rewrites applied.
func Rewrite(src []byte, o Options) ([]byte, Report, error) {
	parts, _, rep, err := rewriteParts(src, o, false)
	if err != nil {
		return nil, rep, err
	}
	return bytes.Join(parts, nil), rep, nil
}

// rewriteParts is Rewrite's model as pieces to write one after the other, the weights
// stored in the graph src's own bytes, not copied: a copy is written without holding the
// model twice. ext says whether the copy has a folder of its own, where packed weights kept
// in the source's external data go as packedData, data's sections (see packed.go).
func rewriteParts(src []byte, o Options, ext bool) (parts [][]byte, data []section, rep Report, err error) {
	if o.FloatCompute && o.AccuracyLevel > 0 {
		return nil, nil, rep, errf("float compute and accuracy level %d are both asked for", o.AccuracyLevel)
	}
	info, err := proto.Parse(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		return nil, nil, rep, err
	}
	mfs, err := fields(src)
	if err != nil {
		return nil, nil, rep, errf("read model: %v", err)
	}
	var out []byte
	hasMS := false
	for _, o := range info.Opsets {
		hasMS = hasMS || o.Domain == "com.microsoft"
	}
	for _, f := range mfs {
		if f.num != proto.FieldModelGraph || f.typ != protowire.BytesType {
			out = append(out, f.raw...)
			continue
		}
		g, d, err := rewriteGraph(f.val, info, o, ext, &rep)
		if err != nil {
			return nil, nil, rep, err
		}
		data = append(data, d...)
		size := 0
		for _, p := range g {
			size += len(p)
		}
		out = protowire.AppendTag(out, proto.FieldModelGraph, protowire.BytesType)
		out = protowire.AppendVarint(out, uint64(size))
		parts, out = append(append(parts, out), g...), nil
	}
	if (rep.AttentionLayers > 0 || rep.SkipNorms > 0) && !hasMS {
		out = append(out, msOpset()...)
	}
	var domains []string // the kernels' domains the copy's nodes run in
	if rep.AttentionKernelNodes > 0 {
		domains = append(domains, o.AttentionKernel.Domain, o.AttentionKernel.DomainInt8)
		out = append(out, attentionMetadata(o.AttentionKernel, rep.AttentionKernelNodes)...)
	}
	if rep.MatMulKernelNodes > 0 {
		domains = append(domains, o.MatMulKernel.Domain)
		out = append(out, matMulMetadata(o.MatMulKernel.Domain, rep.MatMulKernelNodes)...)
	}
	if rep.PreNorm > 0 {
		out = append(out, metadataEntry(MetaPreNorm, strconv.Itoa(rep.PreNorm))...)
	}
	if rep.SwiGLU > 0 {
		out = append(out, metadataEntry(MetaSwiGLU, strconv.Itoa(rep.SwiGLU))...)
	}
	out = append(out, domainImports(info, domains...)...)
	if rep.AttentionLayers > 0 {
		out = append(out, metadataEntry(MetaAttention, strconv.Itoa(rep.AttentionLayers))...)
		if rep.RotaryRows > 0 {
			out = append(out, metadataEntry(MetaRotaryRows, strconv.Itoa(rep.RotaryRows))...)
		}
	}
	if o.AccuracyLevel > 0 {
		out = append(out, metadataEntry(MetaAccuracyLevel, strconv.FormatInt(o.AccuracyLevel, 10))...)
	}
	if o.LastRows {
		v := "last"
		if o.KeepInput {
			v = KeepInputName
		}
		out = append(out, metadataEntry(MetaLogitsRows, v)...)
		if o.KeepInput {
			out = append(out, metadataEntry(MetaKeepNone, "1")...)
		}
	}
	return append(parts, out), data, rep, nil
}

// rewriteGraph returns the rewritten graph b as pieces, its large weights b's own bytes, and
// the sections of packedData (ext: see rewriteParts).
func rewriteGraph(b []byte, info *proto.ModelInfo, o Options, ext bool, rep *Report) ([][]byte, []section, error) {
	gfs, err := fields(b)
	if err != nil {
		return nil, nil, errf("read graph: %v", err)
	}
	var nodes []node
	for _, f := range gfs {
		if f.num == proto.FieldGraphNode && f.typ == protowire.BytesType {
			n, err := parseNode(f.val)
			if err != nil {
				return nil, nil, errf("read node: %v", err)
			}
			nodes = append(nodes, n)
		}
	}
	var hoisted []field
	if nodes, hoisted, rep.Unmerged, rep.UnmergeSkipped, err = unmerge(nodes, info); err != nil {
		return nil, nil, errf("merged decoder: %v", err)
	}
	gfs = append(gfs, hoisted...) // the branch's initializers, seen by the rewrites and written
	if o.FloatCompute {
		for i, n := range nodes {
			if n.op != "MatMulNBits" {
				continue
			}
			lvl, ok, err := intAttr(n.raw, "accuracy_level")
			if err != nil {
				return nil, nil, err
			}
			if !ok || lvl == 0 {
				continue
			}
			if nodes[i].raw, err = withIntAttr(n.raw, "accuracy_level", 0); err != nil {
				return nil, nil, err
			}
			rep.AccuracyLevelSet++
		}
	}
	if o.AccuracyLevel > 0 {
		for i, n := range nodes {
			if n.op != "MatMulNBits" {
				continue
			}
			if len(n.inputs) > 3 && n.inputs[3] != "" {
				rep.ZeroPointsKept++
				continue
			}
			lvl, ok, err := intAttr(n.raw, "accuracy_level")
			if err != nil {
				return nil, nil, err
			}
			if ok && lvl >= o.AccuracyLevel {
				continue
			}
			if nodes[i].raw, err = withIntAttr(n.raw, "accuracy_level", o.AccuracyLevel); err != nil {
				return nil, nil, err
			}
			rep.AccuracyLevelSet++
		}
	}
	var inits, inputs [][]byte
	if o.FuseRMSNorm {
		nodes, rep.RMSNorms = fuseRMSNorm(nodes, gfs, info)
	}
	if o.SharedKVAttention {
		rewritten, added, res := rewriteAttention(nodes, gfs, info, o.RotaryRows)
		if res.skipped != "" {
			rep.AttentionSkipped = res.skipped
		} else {
			nodes, inits, rep.AttentionLayers = rewritten, added, res.layers
			rep.RotaryRows, rep.RotarySkipped = res.rotaryRows, res.rotarySkipped
		}
	}
	if o.KeepLayers > 0 {
		var added [][]byte
		nodes, gfs, added, rep.KeptLayers, rep.KeepLayersSkipped = keepLayers(nodes, gfs, info, o.KeepLayers)
		inits = append(inits, added...)
	}
	if o.LastRows {
		var headInits [][]byte
		if nodes, headInits, inputs, err = pruneHead(nodes, info, o, rep); err != nil {
			return nil, nil, err
		}
		inits = append(inits, headInits...)
		if o.LastLayerRows {
			slice := slices.IndexFunc(nodes, func(n node) bool { return n.name == headSlice })
			nodes, rep.LastLayerNodes, rep.LastLayerSkipped = pruneLastLayer(nodes, gfs, info, slice)
		}
	}
	if o.FuseSkipNorm {
		// Last: the layer matching above reads residual Adds and norms as exports write them.
		nodes, rep.SkipNorms = fuseSkipNorm(nodes, gfs, info)
	}
	var packed packResult
	if o.FusePackedQKV || o.FuseGateUp {
		// After the rewrites that match projections by what reads them.
		packed = packMatMuls(nodes, gfs, info, o.FusePackedQKV, o.FuseGateUp, ext)
		nodes, rep.PackedQKV, rep.PackedGateUp = packed.nodes, packed.qkv, packed.gateUp
	}
	if o.AttentionKernel.on() {
		// Last: the rewrites above find GroupQueryAttention in com.microsoft.
		rep.AttentionKernelNodes, rep.AttentionKernelSkipped = moveAttention(nodes, info, o.AttentionKernel)
		if o.AttentionKernel.QKNorm {
			added := slices.Clone(inits)
			for _, t := range packed.inits { // the packed products' Split sizes among them
				if len(t) == 1 {
					if fs, err := fields(t[0]); err == nil && len(fs) == 1 {
						added = append(added, fs[0].val)
					}
				}
			}
			nodes, rep.QKNormFolded, rep.QKNormSkipped = foldQKNorm(nodes, gfs, added, info, o.AttentionKernel)
		}
	}
	if o.MatMulKernel.Domain != "" {
		// Last: the rewrites above find MatMulNBits in com.microsoft.
		rep.MatMulKernelNodes, rep.MatMulKernelSkipped = moveMatMuls(nodes, initializerTypes(gfs, packed.types), o.MatMulKernel)
		if o.FuseSwiGLU && rep.MatMulKernelNodes > 0 {
			// After the move: it folds into the kernel's products only.
			if nodes, rep.SwiGLU, rep.SwiGLUSkipped, err = fuseSwiGLU(nodes, append(slices.Clip(gfs), smallInitFields(packed.inits)...), info, o.MatMulKernel.Domain); err != nil {
				return nil, nil, err
			}
		}
		if o.FusePreNorm && rep.MatMulKernelNodes > 0 {
			if nodes, rep.PreNorm, rep.PreNormSkipped, err = fusePreNorm(nodes, gfs, info, o.MatMulKernel.Domain); err != nil {
				return nil, nil, err
			}
		}
		if o.MatMulKernel.Cols16 && rep.MatMulKernelNodes > 0 {
			// After the fusions: the products keep their weights, whatever reads them.
			if rep.Cols16, rep.Cols16Skipped, err = layoutCols16(nodes, gfs, &packed, info, ext, o.MatMulKernel.Domain); err != nil {
				return nil, nil, err
			}
		}
	}
	if nodes, err = uniqueNames(nodes); err != nil {
		return nil, nil, err
	}
	var parts [][]byte
	var out []byte
	wroteNodes := false
	for _, f := range gfs {
		if f.num == proto.FieldGraphInitializer && len(packed.drop) > 0 {
			if name, _, ok := tensorHeader(f.val); ok && packed.drop[name] {
				continue // packed: read by the packed nodes only
			}
		}
		if f.num == proto.FieldGraphInitializer && len(f.raw) >= 1<<16 {
			parts, out = append(parts, out, f.raw), nil // a weight: written from b
			continue
		}
		if f.num != proto.FieldGraphNode {
			out = append(out, f.raw...)
			continue
		}
		if !wroteNodes {
			for _, n := range nodes {
				out = appendBytes(out, proto.FieldGraphNode, n.raw)
			}
			wroteNodes = true
		}
	}
	for _, t := range inits {
		out = appendBytes(out, proto.FieldGraphInitializer, t)
	}
	for _, t := range packed.inits {
		parts, out = append(append(parts, out), t...), nil
	}
	for _, in := range inputs {
		out = appendBytes(out, proto.FieldGraphInput, in)
	}
	return append(parts, out), packed.data, nil
}

// pruneHead finds the LM head (the MatMul, MatMulNBits or Gemm that the logits output comes
// from through Reshape, Cast or Identity nodes), feeds it only the last rows of its input
// (Slice on axis -2, which is the sequence for [batch, seq, hidden] and the rows of a
// flattened [batch·seq, hidden], batch 1), and makes the Reshapes after it produce
// [1, rows, vocab].
func pruneHead(nodes []node, info *proto.ModelInfo, o Options, rep *Report) ([]node, [][]byte, [][]byte, error) {
	logits, ok := info.Output("logits")
	if !ok || len(logits.Dims) == 0 || logits.Dims[len(logits.Dims)-1].Value <= 0 {
		return nil, nil, nil, errf("the graph has no logits output with a fixed vocabulary")
	}
	vocab := logits.Dims[len(logits.Dims)-1].Value
	producer := map[string]int{}
	for i, n := range nodes {
		for _, out := range n.outputs {
			producer[out] = i
		}
	}
	var reshapes []int
	head := -1
	for cur := "logits"; head < 0; {
		i, ok := producer[cur]
		if !ok {
			return nil, nil, nil, errf("no node computes %s", cur)
		}
		switch nodes[i].op {
		case "Reshape":
			reshapes = append(reshapes, i)
		case "Cast", "Identity":
		case "MatMul", "MatMulNBits", "Gemm":
			head = i
			continue
		default:
			return nil, nil, nil, errf("logits come from a %s node, not an LM head this rewrite knows", nodes[i].op)
		}
		cur = nodes[i].inputs[0]
	}
	const p = lastRowsPrefix
	inits := [][]byte{int64Initializer(p+"/ends", math.MaxInt64), int64Initializer(p+"/axes", -2), int64Initializer(p+"/shape", 1, -1, vocab)}
	var added []node
	var inputs [][]byte
	starts, ends := p+"/starts", p+"/ends"
	if o.KeepInput {
		// The rows [-keep, ends): ends is the end for keep ≥ 1 and 0 for keep = 0, an empty
		// slice (Slice's start -0 would otherwise be the first row).
		ends = p + "/ends_keep"
		added = append(added,
			mkNode(encodeNode(p+"/neg", "Neg", []string{KeepInputName}, []string{starts})),
			mkNode(encodeNode(p+"/any", "Sign", []string{KeepInputName}, []string{p + "/any"})),
			mkNode(encodeNode(p+"/ends_keep", "Mul", []string{p + "/any", p + "/ends"}, []string{ends})))
		inputs = append(inputs, keepInputInfo())
	} else {
		inits = append(inits, int64Initializer(starts, -1))
	}
	h := nodes[head]
	added = append(added, mkNode(encodeNode(headSlice, "Slice", []string{h.inputs[0], starts, ends, p + "/axes"}, []string{p + "/rows"})))
	if err := rewire(&nodes[head], 0, p+"/rows"); err != nil {
		return nil, nil, nil, err
	}
	for _, i := range reshapes {
		if err := rewire(&nodes[i], 1, p+"/shape"); err != nil {
			return nil, nil, nil, err
		}
	}
	rep.LMHead = h.name
	return slices.Insert(nodes, head, added...), inits, inputs, nil
}

// The names pruneHead gives what it adds.
const (
	lastRowsPrefix = "edgechat_last_rows"
	headSlice      = lastRowsPrefix + "/slice"
)

// rewire makes input idx of n name, in its bytes and its parsed inputs.
func rewire(n *node, idx int, name string) error {
	raw, err := withInput(n.raw, idx, name)
	if err != nil {
		return err
	}
	n.raw, n.inputs[idx] = raw, name
	return nil
}

// withInput returns node bytes whose input idx is name.
func withInput(raw []byte, idx int, name string) ([]byte, error) {
	fs, err := fields(raw)
	if err != nil {
		return nil, err
	}
	var out []byte
	k := 0
	for _, f := range fs {
		if f.num == proto.FieldNodeInput {
			if k == idx {
				out = appendBytes(out, proto.FieldNodeInput, []byte(name))
				k++
				continue
			}
			k++
		}
		out = append(out, f.raw...)
	}
	if k <= idx {
		return nil, errf("node has no input %d", idx)
	}
	return out, nil
}

// keepInputInfo declares logits_to_keep: int64 [1].
func keepInputInfo() []byte {
	var dim, shape, tt, typ, vi []byte
	dim = appendVarint(dim, 1, 1)
	shape = appendBytes(shape, 1, dim)
	tt = appendVarint(tt, 1, int64Type)
	tt = appendBytes(tt, 2, shape)
	typ = appendBytes(typ, 1, tt)
	vi = appendBytes(vi, proto.FieldValueName, []byte(KeepInputName))
	return appendBytes(vi, 2, typ)
}
