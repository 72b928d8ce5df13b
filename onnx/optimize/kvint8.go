package optimize

import (
	"bytes"
	_ "embed" // KVCalibrationText
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// An int8 KV cache: ONNX Runtime's CPU GroupQueryAttention (1.30) keeps past and present as
// int8 when the node says k_quant_type / v_quant_type and kv_cache_bit_width 8 and takes
// float32 scales as inputs 12 (k_scale) and 13 (v_scale). Checked on a one-node graph
// (inference/ort/kvbench's tests): PER_CHANNEL scales hold kv_heads × head_dim values, head by
// head, whatever their shape ([n], [kv_heads, head_dim], [1, kv_heads, 1, head_dim]);
// PER_TENSOR one; a cached value is round(x / scale) clamped to [-128, 127]; past and present
// may be one shared buffer; prompts (several rows at once, with or without cached rows) work.
// Keys are stored after the rotation when the node rotates them.
//
// A 4-bit cache (kv_cache_bit_width 4, same scales and quant types) is uint8 with head_dim / 2
// bytes a row: element 2i in the low nibble of byte i, 2i+1 in the high one, each stored as
// round(x / scale) + 8 clamped to [0, 15] (checked in inference/ort/kvbench's tests). On this
// project's x86-64 machines ONNX Runtime 1.30's 4-bit kernel is no faster than its 8-bit one
// (inference/ort/kvbench): the quantized kernels are bound by their dequantising arithmetic,
// not by reading the cache.

// MetaKVInt8 is "per_channel" on a copy whose cache QuantizeKV made int8, "per_channel_4bit"
// on one QuantizeKVBits made 4-bit.
const MetaKVInt8 = "edgechat.kv_cache_int8"

// KVScales are the float32 scales of an int8 cache, by the name of each layer's past input
// (its key's and its value's): kv_heads × head_dim values each, head by head.
type KVScales map[string][]float32

// KVMax is the largest magnitude seen in each channel of each cache input (by name):
// kv_heads × head_dim values, head by head, filled by Add from a float32 run over a
// calibration text.
type KVMax map[string][]float32

// Add takes one cached row of head head of the cache input name. A rotated row (a
// key under rotary embeddings, rotate-half layout) counts each channel pair (d, d + head_dim/2)
// by the pair's norm, which the rotation keeps whatever the position: a calibration text
// shorter than the conversations it serves then still bounds their rotated keys.
func (m KVMax) Add(name string, head int, row []float32, rotated bool) {
	hd := len(row)
	c := m[name]
	if n := (head + 1) * hd; len(c) < n {
		c = append(c, make([]float32, n-len(c))...)
		m[name] = c
	}
	c = c[head*hd : (head+1)*hd]
	if rotated && hd%2 == 0 {
		for d := range hd / 2 {
			n := float32(math.Hypot(float64(row[d]), float64(row[d+hd/2])))
			c[d], c[d+hd/2] = max(c[d], n), max(c[d+hd/2], n)
		}
		return
	}
	for d, v := range row {
		c[d] = max(c[d], float32(math.Abs(float64(v))))
	}
}

// KVKeys names the past key inputs of the GroupQueryAttention nodes of src (the inputs whose
// rows KVMax.Add takes as rotated).
func KVKeys(src []byte) (map[string]bool, error) {
	gfs, err := graphFields(src)
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for _, g := range gfs {
		if g.num != proto.FieldGraphNode || g.typ != protowire.BytesType {
			continue
		}
		n, err := parseNode(g.val)
		if err != nil {
			return nil, errf("read node: %v", err)
		}
		if n.op == "GroupQueryAttention" && len(n.inputs) > 3 { // com.microsoft's or a kernel's (AttentionKernel)
			keys[n.inputs[3]] = true
		}
	}
	return keys, nil
}

// ScalesFromMax turns the largest magnitude seen in each channel (a float32 run over a
// calibration text) into scales: max × margin / 127, so values up to margin times the largest
// seen keep their sign and size. A channel that never left zero gets the scale of a
// thousandth of its tensor's largest value (or 1e-6), never 0.
func ScalesFromMax(maxAbs KVMax, margin float64) KVScales {
	return ScalesFromMaxBits(maxAbs, margin, 8)
}

// ScalesFromMaxBits is ScalesFromMax for a cache of bits bits (8 or 4): max × margin / 127, or
// / 7 for 4 bits (whose values run from -8 to 7).
func ScalesFromMaxBits(maxAbs KVMax, margin float64, bits int) KVScales {
	levels := 127.0
	if bits == 4 {
		levels = 7
	}
	out := KVScales{}
	for name, m := range maxAbs {
		top := float32(0)
		for _, v := range m {
			top = max(top, v)
		}
		floor := max(top/1000, 1e-6)
		s := make([]float32, len(m))
		for i, v := range m {
			s[i] = float32(float64(max(v, floor)) * margin / levels)
		}
		out[name] = s
	}
	return out
}

// QuantizeKV returns the GroupQueryAttention graph src with an int8 cache: every
// GroupQueryAttention node gets per-channel k_scale and v_scale (from scales, by its past
// inputs' names) and stores its cache as int8, and the graph's past and present tensors
// become int8. Every node must have its scales, and the graph must not already have a
// quantized cache. The result is lossy: check it by the tokens it generates, not bit by bit.
//
// The nodes of a copy whose attention runs on custom kernels (AttentionKernel: the copy's
// MetaAttentionDomain) are quantized too, and move to its int8 kernels' domain
// (MetaAttentionDomainInt8, imported by that copy), or back to com.microsoft where it has
// none or the cache is 4-bit.
func QuantizeKV(src []byte, scales KVScales) ([]byte, error) {
	return QuantizeKVBits(src, scales, 8)
}

// QuantizeKVBits is QuantizeKV with a cache of bits bits: 8 (int8) or 4 (uint8 tensors of
// head_dim / 2 bytes a row, two values a byte; scales from ScalesFromMaxBits(…, 4)).
func QuantizeKVBits(src []byte, scales KVScales, bits int) ([]byte, error) {
	if bits != 8 && bits != 4 {
		return nil, errf("a quantized KV cache has 8 or 4 bits, not %d", bits)
	}
	mfs, err := fields(src)
	if err != nil {
		return nil, errf("read model: %v", err)
	}
	info, err := proto.Parse(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		return nil, err
	}
	move := kernelMove{from: info.Metadata[MetaAttentionDomain], to: info.Metadata[MetaAttentionDomainInt8]}
	if move.to == "" || bits != 8 {
		move.to = "com.microsoft"
	}
	var out []byte
	for _, f := range mfs {
		if f.num != proto.FieldModelGraph || f.typ != protowire.BytesType {
			out = append(out, f.raw...)
			continue
		}
		g, err := quantizeKVGraph(f.val, scales, bits, move)
		if err != nil {
			return nil, err
		}
		out = appendBytes(out, proto.FieldModelGraph, g)
	}
	meta := "per_channel"
	if bits == 4 {
		meta = "per_channel_4bit"
	}
	return append(out, metadataEntry(MetaKVInt8, meta)...), nil
}

// kernelMove is where QuantizeKV moves the nodes of a float32 kernel's domain (from; "" for
// none): the int8 kernel's domain or com.microsoft.
type kernelMove struct{ from, to string }

// gqa says whether n is a GroupQueryAttention node QuantizeKV quantizes.
func (m kernelMove) gqa(n node) bool {
	return n.op == "GroupQueryAttention" && (n.domain == "com.microsoft" || m.from != "" && n.domain == m.from)
}

func quantizeKVGraph(b []byte, scales KVScales, bits int, move kernelMove) ([]byte, error) {
	gfs, err := fields(b)
	if err != nil {
		return nil, errf("read graph: %v", err)
	}
	int8Names := map[string]bool{}
	var inits [][]byte
	var out []byte
	layers := 0
	for _, f := range gfs {
		if f.num != proto.FieldGraphNode || f.typ != protowire.BytesType {
			continue
		}
		n, err := parseNode(f.val)
		if err != nil {
			return nil, errf("read node: %v", err)
		}
		if !move.gqa(n) {
			continue
		}
		if len(n.inputs) < 5 || len(n.outputs) < 3 {
			return nil, errf("GroupQueryAttention node %s has no cache", n.name)
		}
		if len(n.inputs) > 12 && n.inputs[12] != "" || len(n.inputs) > 13 && n.inputs[13] != "" {
			return nil, errf("GroupQueryAttention node %s already has cache scales", n.name)
		}
		layers++
		for _, name := range []string{n.inputs[3], n.inputs[4]} {
			if len(scales[name]) == 0 {
				return nil, errf("no int8 scales for %s", name)
			}
		}
		for _, name := range slices.Concat(n.inputs[3:5], n.outputs[1:3]) {
			int8Names[name] = true
		}
	}
	if layers == 0 {
		return nil, errf("the graph has no GroupQueryAttention node whose cache could be int8")
	}
	for _, f := range gfs {
		switch {
		case f.num == proto.FieldGraphNode && f.typ == protowire.BytesType:
			n, _ := parseNode(f.val) // parsed above
			if !move.gqa(n) {
				break
			}
			if n.domain != "com.microsoft" {
				n = withDomain(n, move.to)
			}
			ks, vs := kvScaleName(n.inputs[3]), kvScaleName(n.inputs[4])
			inits = append(inits, initializer(proto.FloatTensor(ks, []int64{int64(len(scales[n.inputs[3]]))}, scales[n.inputs[3]])),
				initializer(proto.FloatTensor(vs, []int64{int64(len(scales[n.inputs[4]]))}, scales[n.inputs[4]])))
			in := slices.Clone(n.inputs)
			for len(in) < 14 {
				in = append(in, "")
			}
			in[12], in[13] = ks, vs // a kernel node's q/k norms (inputs 14, 15) kept
			raw, err := withInputs(n.raw, in)
			if err != nil {
				return nil, err
			}
			raw = appendBytes(raw, proto.FieldNodeAttr, withString("k_quant_type", "PER_CHANNEL"))
			raw = appendBytes(raw, proto.FieldNodeAttr, withString("v_quant_type", "PER_CHANNEL"))
			if raw, err = withIntAttr(raw, "kv_cache_bit_width", int64(bits)); err != nil {
				return nil, err
			}
			out = appendBytes(out, proto.FieldGraphNode, raw)
			continue
		case (f.num == proto.FieldGraphInput || f.num == proto.FieldGraphOutput) && f.typ == protowire.BytesType:
			raw, err := valueInfoAsQuant(f.val, int8Names, bits)
			if err != nil {
				return nil, err
			}
			out = appendBytes(out, f.num, raw)
			continue
		}
		out = append(out, f.raw...)
	}
	for _, t := range inits {
		out = appendBytes(out, proto.FieldGraphInitializer, t)
	}
	return out, nil
}

// kvScaleName is the initializer holding the scales of the cache input past.
func kvScaleName(past string) string { return kvScalePrefix + past + kvScaleSuffix }

const (
	kvScalePrefix = "edgechat_kv8/"
	kvScaleSuffix = "/scale"
)

// withInputs returns node bytes whose inputs are in (the other fields kept, in order).
func withInputs(raw []byte, in []string) ([]byte, error) {
	fs, err := fields(raw)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, s := range in {
		out = appendBytes(out, proto.FieldNodeInput, []byte(s))
	}
	for _, f := range fs {
		if f.num != proto.FieldNodeInput {
			out = append(out, f.raw...)
		}
	}
	return out, nil
}

// withString is a string attribute.
func withString(name, v string) nodeAttr {
	var a []byte
	a = appendBytes(a, proto.FieldAttrName, []byte(name))
	a = appendBytes(a, proto.FieldAttrS, []byte(v))
	return appendVarint(a, proto.FieldAttrType, attrString)
}

// attrString is AttributeProto.STRING.
const attrString = 3

// valueInfoAsQuant returns the ValueInfoProto b as a cache of bits bits when its name is in
// names (element type int8; for 4 bits uint8 with the last dimension halved), else b.
func valueInfoAsQuant(b []byte, names map[string]bool, bits int) ([]byte, error) {
	if bits == 4 {
		return valueInfoAs(b, names, uint64(proto.Uint8), func(v uint64) (uint64, error) {
			if v%2 != 0 {
				return 0, fmt.Errorf("head_dim %d is odd: no 4-bit cache", v)
			}
			return v / 2, nil
		})
	}
	return valueInfoAs(b, names, uint64(proto.Int8), nil)
}

// valueInfoAs returns the ValueInfoProto b with element type elem and its last dimension's
// value passed through dim (nil: kept) when its name is in names, else b.
func valueInfoAs(b []byte, names map[string]bool, elem uint64, dim func(uint64) (uint64, error)) ([]byte, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, errf("read value info: %v", err)
	}
	name := ""
	for _, f := range fs {
		if f.num == proto.FieldValueName && f.typ == protowire.BytesType {
			name = string(f.val)
		}
	}
	if !names[name] {
		return b, nil
	}
	var out []byte
	for _, f := range fs {
		if f.num != proto.FieldValueType || f.typ != protowire.BytesType {
			out = append(out, f.raw...)
			continue
		}
		typ, err := replaceField(f.val, proto.FieldTypeTensor, func(tt []byte) ([]byte, error) {
			tfs, err := fields(tt)
			if err != nil {
				return nil, err
			}
			var o []byte
			for _, t := range tfs {
				switch {
				case t.num == proto.FieldTensorElemType:
					o = appendVarint(o, proto.FieldTensorElemType, elem)
				case t.num == proto.FieldTensorShape && t.typ == protowire.BytesType && dim != nil:
					sh, err := editLastDim(t.val, dim)
					if err != nil {
						return nil, err
					}
					o = appendBytes(o, proto.FieldTensorShape, sh)
				default:
					o = append(o, t.raw...)
				}
			}
			return o, nil
		})
		if err != nil {
			return nil, errf("value info %s: %v", name, err)
		}
		out = appendBytes(out, proto.FieldValueType, typ)
	}
	return out, nil
}

// editLastDim returns the TensorShapeProto b with its last dimension's value passed through
// dim (a 4-bit cache's head_dim / 2 bytes a row; a per-row cache's head_dim + 4).
func editLastDim(b []byte, dim func(uint64) (uint64, error)) ([]byte, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	last := -1
	for i, f := range fs {
		if f.num == proto.FieldShapeDim {
			last = i
		}
	}
	if last < 0 {
		return b, nil
	}
	var out []byte
	for i, f := range fs {
		if i != last {
			out = append(out, f.raw...)
			continue
		}
		dfs, err := fields(f.val)
		if err != nil {
			return nil, err
		}
		var d []byte
		for _, x := range dfs {
			if x.num == proto.FieldDimValue && x.typ == protowire.VarintType {
				v, err := dim(x.v)
				if err != nil {
					return nil, err
				}
				d = appendVarint(d, proto.FieldDimValue, v)
				continue
			}
			d = append(d, x.raw...)
		}
		out = appendBytes(out, proto.FieldShapeDim, d)
	}
	return out, nil
}

// replaceField returns message b with its length-delimited field num passed through edit.
func replaceField(b []byte, num protowire.Number, edit func([]byte) ([]byte, error)) ([]byte, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, f := range fs {
		if f.num == num && f.typ == protowire.BytesType {
			v, err := edit(f.val)
			if err != nil {
				return nil, err
			}
			out = appendBytes(out, num, v)
			continue
		}
		out = append(out, f.raw...)
	}
	return out, nil
}

// KVCalibrationText is text to calibrate an int8 cache on: a short chat (ChatML markers) with a
// story, an explanation, code, a list and numbers.
//
//go:embed kvcalib.txt
var KVCalibrationText string

// CachedKVInt8 returns the path of the int8-cache copy (QuantizeKV) of the GroupQueryAttention
// graph at path, writing it into cacheDir/optimized/<key>/ the first time with the scales
// scales returns (called only then); the key covers the source (path, size, time) and calib,
// which names how the scales are found (text, margin). External data files are linked beside
// it, as Cached does.
func CachedKVInt8(path, cacheDir, calib string, scales func() (KVScales, error)) (string, error) {
	return CachedKVBits(path, cacheDir, calib, 8, scales)
}

// CachedKVBits is CachedKVInt8 for a cache of bits bits (8 or 4, QuantizeKVBits); scales must
// be for that width (ScalesFromMaxBits).
func CachedKVBits(path, cacheDir, calib string, bits int, scales func() (KVScales, error)) (string, error) {
	kind := "kv8\x00"
	if bits == 4 {
		kind = "kv4\x00"
	}
	return cachedKVCopy(path, cacheDir, kind, calib, fmt.Sprintf("%d-bit cache", bits), func(src []byte) ([]byte, error) {
		s, err := scales()
		if err != nil {
			return nil, err
		}
		return QuantizeKVBits(src, s, bits)
	})
}

// cachedKVCopy returns the path of the copy of the graph at path that quantize makes of it
// (called only the first time), cached in cacheDir/optimized/<key>/ under kind and how;
// what names the copy in errors.
func cachedKVCopy(path, cacheDir, kind, how, what string, quantize func(src []byte) ([]byte, error)) (string, error) {
	abs, out, err := copyPath(path, cacheDir, kind, how)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(out)
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return "", err
	}
	b, err := quantize(src)
	if err != nil {
		return "", fmt.Errorf("%s for %s: %w", what, path, err)
	}
	info, err := proto.Parse(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, x := range info.ExternalFiles {
		if err := link(filepath.Join(filepath.Dir(abs), x), filepath.Join(dir, x)); err != nil {
			return "", fmt.Errorf("link the weights %s beside the %s copy: %w", x, what, err)
		}
	}
	if err := replaceWith(out, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}); err != nil {
		return "", err
	}
	return out, nil
}

// ReadKVScales returns the scales of the int8 cache of src, a copy QuantizeKV wrote: by the
// name of each past input, as QuantizeKV took them. A graph without them is an error.
func ReadKVScales(src []byte) (KVScales, error) {
	gfs, err := graphFields(src)
	if err != nil {
		return nil, err
	}
	out := KVScales{}
	for _, g := range gfs {
		if g.num != proto.FieldGraphInitializer || g.typ != protowire.BytesType {
			continue
		}
		name, _, ok := tensorHeader(g.val)
		past, found := strings.CutPrefix(name, kvScalePrefix)
		if !ok || !found || !strings.HasSuffix(past, kvScaleSuffix) {
			continue
		}
		_, v, _, ok := tensorValuesUpTo(g.val, 1<<20)
		if !ok || len(v) == 0 {
			return nil, errf("the cache scales %s cannot be read", name)
		}
		s := make([]float32, len(v))
		for i, x := range v {
			s[i] = float32(x)
		}
		out[strings.TrimSuffix(past, kvScaleSuffix)] = s
	}
	if len(out) == 0 {
		return nil, errf("the graph has no int8 cache scales")
	}
	return out, nil
}

// graphFields returns the fields of model src's graph.
func graphFields(src []byte) ([]field, error) {
	mfs, err := fields(src)
	if err != nil {
		return nil, errf("read model: %v", err)
	}
	for _, f := range mfs {
		if f.num == proto.FieldModelGraph && f.typ == protowire.BytesType {
			gfs, err := fields(f.val)
			if err != nil {
				return nil, errf("read graph: %v", err)
			}
			return gfs, nil
		}
	}
	return nil, errf("the model has no graph")
}
