package synth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"edgechat/internal/gguf"
	"edgechat/onnx/proto"
)

// WriteGGUF writes the llama.cpp twin of the q4 (or genai-int4) model o describes: a Q4_0 GGUF
// of llama.cpp's qwen3 architecture whose quantized weights are bit-identical to the ONNX
// file's MatMulNBits weights (the same nibbles, reordered from MatMulNBits' element 2i low /
// 2i+1 high to ggml's j low / j+16 high, and the same float16 scales), with the embedding in
// float32 as the ONNX Gather reads it and the LM head as a separate Q4_0 output tensor. The
// vocabulary comes from o.TokenizerDir.
func WriteGGUF(path string, o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if o.ZeroPoints || (o.Quant != QuantQ4 && o.Quant != QuantGenAIInt4) {
		return fmt.Errorf("a Q4_0 twin needs symmetric 4-bit weights without zero points (--quant q4 or genai-int4), not %q", o.Quant)
	}
	if o.TokenizerDir == "" {
		return fmt.Errorf("the GGUF twin needs Qwen3's tokenizer.json for its vocabulary: give the tokenizer folder")
	}
	md, err := ggufVocab(filepath.Join(o.TokenizerDir, "tokenizer.json"), o.Vocab)
	if err != nil {
		return err
	}
	const arch = "qwen3"
	for k, v := range map[string]any{
		"general.architecture": arch, "general.name": "edgechat synthetic qwen3", "general.file_type": uint32(2), // MOSTLY_Q4_0
		arch + ".block_count": uint32(o.Layers), arch + ".context_length": uint32(o.MaxPositions),
		arch + ".embedding_length": uint32(o.Hidden), arch + ".feed_forward_length": uint32(o.Intermediate),
		arch + ".attention.head_count": uint32(o.Heads), arch + ".attention.head_count_kv": uint32(o.KVHeads),
		arch + ".attention.key_length": uint32(o.HeadDim), arch + ".attention.value_length": uint32(o.HeadDim),
		arch + ".rope.freq_base": float32(o.RopeTheta), arch + ".attention.layer_norm_rms_epsilon": float32(o.RMSNormEps),
	} {
		md[k] = v
	}
	w := newWeights(o)
	h, q, kv, n := o.Hidden, o.Heads*o.HeadDim, o.KVHeads*o.HeadDim, o.Intermediate
	f32 := func(name string, v []float32, dims ...uint64) gguf.Tensor {
		return gguf.Tensor{Name: name, Type: gguf.F32, Dims: dims, Data: gguf.Float32Data(v)}
	}
	f := &gguf.File{Metadata: md, Tensors: []gguf.Tensor{
		f32("token_embd.weight", w.embed, uint64(h), uint64(o.Vocab)),
		q40("output.weight", matrix{data: w.output(), k: h, n: o.Vocab, nk: true}),
		f32("output_norm.weight", w.norm, uint64(h)),
	}}
	for l, lw := range w.layers {
		p := fmt.Sprintf("blk.%d.", l)
		f.Tensors = append(f.Tensors,
			f32(p+"attn_norm.weight", lw.inNorm, uint64(h)),
			q40(p+"attn_q.weight", matrix{data: lw.q, k: h, n: q}),
			q40(p+"attn_k.weight", matrix{data: lw.k, k: h, n: kv}),
			q40(p+"attn_v.weight", matrix{data: lw.v, k: h, n: kv}),
			q40(p+"attn_output.weight", matrix{data: lw.o, k: q, n: h}),
			f32(p+"attn_q_norm.weight", lw.qNorm, uint64(o.HeadDim)),
			f32(p+"attn_k_norm.weight", lw.kNorm, uint64(o.HeadDim)),
			f32(p+"ffn_norm.weight", lw.postNorm, uint64(h)),
			q40(p+"ffn_gate.weight", matrix{data: lw.gate, k: h, n: n}),
			q40(p+"ffn_up.weight", matrix{data: lw.up, k: h, n: n}),
			q40(p+"ffn_down.weight", matrix{data: lw.down, k: n, n: h}),
		)
	}
	return f.WriteFile(path)
}

// q40 is m as a ggml Q4_0 tensor [K, N]: per output row, blocks of a float16 scale and 16 bytes
// holding element j in the low and j+16 in the high nibble.
func q40(name string, m matrix) gguf.Tensor {
	return gguf.Tensor{Name: name, Type: gguf.Q4_0, Dims: []uint64{uint64(m.k), uint64(m.n)}, Data: Q40Bytes(quantizeQ4(m, false))}
}

// Q40Bytes re-packs a symmetric MatMulNBits weight as ggml Q4_0 rows, losslessly.
func Q40Bytes(q *Q4) []byte {
	nb := q.Blocks()
	out := make([]byte, q.N*nb*gguf.Q4_0BlockBytes)
	for n := range q.N {
		for b := range nb {
			blk := out[(n*nb+b)*gguf.Q4_0BlockBytes:]
			d := proto.Float32ToFloat16(q.Scales[n*nb+b])
			blk[0], blk[1] = byte(d), byte(d>>8)
			for j := range Q4Block / 2 {
				k := b * Q4Block
				blk[2+j] = q.Nibble(k+j, n) | q.Nibble(k+j+16, n)<<4
			}
		}
	}
	return out
}

// ggufVocab reads a byte-level BPE tokenizer.json into llama.cpp's "gpt2" tokenizer metadata,
// padding the token list to the model's vocabulary with unused [PADn] entries as llama.cpp's
// converter does.
func ggufVocab(path string, vocab int) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the vocabulary for the GGUF twin: %w", err)
	}
	var tj struct {
		Model struct {
			Vocab  map[string]int    `json:"vocab"`
			Merges []json.RawMessage `json:"merges"`
		} `json:"model"`
		Added []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
	}
	if err := json.Unmarshal(b, &tj); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	const (
		normal, control, userDefined, unused = 1, 3, 4, 5
	)
	tokens, types := make([]string, vocab), make([]int32, vocab)
	for i := range tokens {
		tokens[i], types[i] = fmt.Sprintf("[PAD%d]", i), unused
	}
	for s, id := range tj.Model.Vocab {
		if id < vocab {
			tokens[id], types[id] = s, normal
		}
	}
	for _, a := range tj.Added {
		if a.ID < vocab {
			tokens[a.ID], types[a.ID] = a.Content, userDefined
			if a.Special {
				types[a.ID] = control
			}
		}
	}
	merges := make([]string, len(tj.Model.Merges))
	for i, raw := range tj.Model.Merges {
		var pair []string
		if json.Unmarshal(raw, &pair) == nil && len(pair) == 2 {
			merges[i] = pair[0] + " " + pair[1]
		} else if err := json.Unmarshal(raw, &merges[i]); err != nil {
			return nil, fmt.Errorf("%s: merge %d: %w", path, i, err)
		}
	}
	return map[string]any{
		"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "qwen2",
		"tokenizer.ggml.tokens": tokens, "tokenizer.ggml.token_type": types, "tokenizer.ggml.merges": merges,
		"tokenizer.ggml.bos_token_id": uint32(EndOfText), "tokenizer.ggml.eos_token_id": uint32(ImEnd),
		"tokenizer.ggml.padding_token_id": uint32(EndOfText), "tokenizer.ggml.add_bos_token": false,
	}, nil
}
