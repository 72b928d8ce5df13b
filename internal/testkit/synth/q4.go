package synth

import (
	"math"

	"edgechat/onnx/proto"
)

// Q4Block is the block size of every 4-bit weight here: 32 values share one scale, as in
// onnx-community q4 files, onnxruntime-genai's int4 builds and ggml's Q4_0.
const Q4Block = 32

// matrix is a weight for y = x·W with K inputs and N outputs: stored [K,N] (a projection) or
// [N,K] (the tied LM head, which is the embedding table).
type matrix struct {
	data []float32
	k, n int
	nk   bool // data is [N,K]
}

func (m matrix) at(k, n int) float32 {
	if m.nk {
		return m.data[n*m.k+k]
	}
	return m.data[k*m.n+n]
}

// Q4 is a 4-bit block-quantized weight in MatMulNBits' layout: for output n and block b, the
// 16 bytes Blob[(n·blocks+b)·16:] hold the block's 32 values, value 2i in the low and 2i+1 in
// the high nibble of byte i; the value is (q - zero point) · Scale[n·blocks+b].
type Q4 struct {
	K, N   int
	Blob   []byte
	Scales []float32
	// Zero holds one 4-bit zero point per block, packed like the values (two per byte, each
	// row padded to whole bytes); nil means the symmetric zero point 8.
	Zero []byte
}

// Blocks is the number of blocks along K.
func (q *Q4) Blocks() int { return q.K / Q4Block }

// Nibble is the quantized value of weight (k, n).
func (q *Q4) Nibble(k, n int) byte {
	b := q.Blob[(n*q.K+k)/2]
	if k%2 == 1 {
		return b >> 4
	}
	return b & 0xf
}

// ZeroPoint is the zero point of block b of output n.
func (q *Q4) ZeroPoint(n, b int) byte {
	if q.Zero == nil {
		return 8
	}
	row := (q.Blocks() + 1) / 2
	z := q.Zero[n*row+b/2]
	if b%2 == 1 {
		return z >> 4
	}
	return z & 0xf
}

// Dequant is the value weight (k, n) stands for.
func (q *Q4) Dequant(k, n int) float32 {
	b := k / Q4Block
	return float32(int(q.Nibble(k, n))-int(q.ZeroPoint(n, b))) * q.Scales[n*q.Blocks()+b]
}

// quantizeQ4 quantizes m in blocks of 32 along K. Symmetric blocks follow ggml's Q4_0
// reference (scale = the value of largest magnitude / -8, stored as float16, q = x/scale + 8.5
// truncated): the GGUF twin of a model then holds the very same nibbles and scales.
// Asymmetric blocks (zero points) follow ONNX Runtime's blockwise quantizer: the range
// [min(0,lo), max(0,hi)] in 15 steps.
func quantizeQ4(m matrix, zero bool) *Q4 {
	q := &Q4{K: m.k, N: m.n}
	nb := q.Blocks()
	q.Blob = make([]byte, m.n*m.k/2)
	q.Scales = make([]float32, m.n*nb)
	row := (nb + 1) / 2
	if zero {
		q.Zero = make([]byte, m.n*row)
	}
	var x [Q4Block]float32
	for n := range m.n {
		for b := range nb {
			for j := range x {
				x[j] = m.at(b*Q4Block+j, n)
			}
			var vals [Q4Block]byte
			var scale float32
			if zero {
				var zp byte
				scale, zp = asymBlock(&x, &vals)
				q.Zero[n*row+b/2] |= zp << (4 * (b % 2))
			} else {
				scale = symBlock(&x, &vals)
			}
			q.Scales[n*nb+b] = scale
			base := (n*m.k + b*Q4Block) / 2
			for j := 0; j < Q4Block; j += 2 {
				q.Blob[base+j/2] = vals[j] | vals[j+1]<<4
			}
		}
	}
	return q
}

// symBlock is ggml's quantize_row_q4_0_ref for one block; it returns the float16-exact scale.
func symBlock(x *[Q4Block]float32, q *[Q4Block]byte) float32 {
	var amax, mx float32
	for _, v := range x {
		if a := float32(math.Abs(float64(v))); a > amax {
			amax, mx = a, v
		}
	}
	d := mx / -8
	var id float32
	if d != 0 {
		id = 1 / d
	}
	for j, v := range x {
		q[j] = byte(min(15, int8(float32(v*id)+8.5))) // rounded product, as C computes it
	}
	return proto.Float16ToFloat32(proto.Float32ToFloat16(d))
}

// asymBlock quantizes one block with a zero point.
func asymBlock(x *[Q4Block]float32, q *[Q4Block]byte) (float32, byte) {
	var lo, hi float32
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	scale := (hi - lo) / 15
	if scale == 0 {
		scale = 1
	}
	zp := byte(min(15, max(0, math.Round(float64(-lo/scale)))))
	for j, v := range x {
		q[j] = byte(min(15, max(0, math.Round(float64(v/scale))+float64(zp))))
	}
	return scale, zp
}

// dequantized is m after a round trip through 4 bits, stored like m.
func dequantized(m matrix, zero bool) []float32 {
	q := quantizeQ4(m, zero)
	out := make([]float32, len(m.data))
	for k := range m.k {
		for n := range m.n {
			v := q.Dequant(k, n)
			if m.nk {
				out[n*m.k+k] = v
			} else {
				out[k*m.n+n] = v
			}
		}
	}
	return out
}

// matMulNBits adds x·W as a com.microsoft MatMulNBits node over the 4-bit weight; level > 0
// sets accuracy_level (4: int8 compute), 0 leaves it absent.
func (g *graph) matMulNBits(x, name string, m matrix, zero bool, level int64) string {
	q := quantizeQ4(m, zero)
	nb := int64(q.Blocks())
	in := []string{x, name + "_Q4", name + "_scales"}
	g.inits = append(g.inits,
		&proto.Tensor{Name: in[1], DataType: proto.Uint8, Dims: []int64{int64(m.n), nb, Q4Block / 2}, Raw: q.Blob},
		proto.FloatTensor(in[2], []int64{int64(m.n) * nb}, q.Scales))
	if zero {
		in = append(in, name+"_zp")
		g.inits = append(g.inits, &proto.Tensor{Name: in[3], DataType: proto.Uint8, Dims: []int64{int64(len(q.Zero))}, Raw: q.Zero})
	}
	attrs := []attr{
		proto.IntAttr("K", int64(m.k)), proto.IntAttr("N", int64(m.n)),
		proto.IntAttr("bits", 4), proto.IntAttr("block_size", Q4Block),
	}
	if level > 0 {
		attrs = append(attrs, proto.IntAttr("accuracy_level", level))
	}
	return g.msOp("MatMulNBits", in, []string{""}, attrs...)[0]
}
