//go:build linux && amd64 && cgo

package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/attnop"
	"edgechat/inference/ort/env"
	"edgechat/onnx/proto"
)

// attnDiff is how far the attnop operator is from GroupQueryAttention on one call.
type attnDiff struct {
	out, rms float64 // largest output difference; the output's rms
	rows     float64 // largest difference in the cache rows the call appended
}

// attnCompare runs GroupQueryAttention and the attnop operator on the same
// inputs: newRows new tokens after past cached ones (random values), a float32 cache or an int8
// one, in buffers of a few more rows than they need, each side on its own copy of the cache.
func attnCompare(dir string, past, newRows int, quant bool, threads int) (attnDiff, error) {
	rows := past + newRows + 3
	kScale, vScale := make([]float32, attnKV*attnDim), make([]float32, attnKV*attnDim)
	for i := range kScale {
		kScale[i], vScale[i] = 0.02+0.01*float32(i%7), 0.015+0.005*float32(i%5)
	}
	r := rand.New(rand.NewPCG(uint64(past), uint64(newRows)))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	S := int64(newRows)
	in := []ort.Value{}
	for _, w := range []int64{attnHeads, attnKV, attnKV} {
		t, err := ort.NewTensor(ort.NewShape(1, S, w*attnDim), vec(newRows*int(w)*attnDim))
		if err != nil {
			return attnDiff{}, err
		}
		defer t.Destroy()
		in = append(in, t)
	}
	seq, _ := ort.NewTensor(ort.NewShape(1), []int32{int32(past + newRows - 1)})
	tot, _ := ort.NewTensor(ort.NewShape(1), []int32{int32(past + newRows)})
	defer seq.Destroy()
	defer tot.Destroy()
	var outs [2][]float32
	var caches [2]*attnCache
	for i, domain := range []string{"com.microsoft", map[bool]string{false: attnop.Domain, true: attnop.DomainInt8}[quant]} {
		path := filepath.Join(dir, fmt.Sprintf("check-%d-%d-%v-%d.onnx", past, newRows, quant, i))
		if err := attnModel(domain, attnHeads, quant, rows, kScale, vScale).WriteFile(path, proto.WriteOptions{}); err != nil {
			return attnDiff{}, err
		}
		o, err := ort.NewSessionOptions()
		if err != nil {
			return attnDiff{}, err
		}
		o.SetIntraOpNumThreads(threads)
		if err := attnop.Register(o); err != nil {
			o.Destroy()
			return attnDiff{}, err
		}
		var s *ort.DynamicAdvancedSession
		open := func() error {
			s, err = ort.NewDynamicAdvancedSession(path, []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length"},
				[]string{"out", "present_key", "present_value"}, o)
			return err
		}
		if quant && domain == "com.microsoft" {
			err = env.WithoutGQAFlash(open) // as the app opens copies with an int8 cache
		} else {
			err = open()
		}
		o.Destroy()
		if err != nil {
			return attnDiff{}, fmt.Errorf("%s: %w", domain, err)
		}
		defer s.Destroy()
		c, err := newAttnCache(quant, rows, 1, uint64(past))
		if err != nil {
			return attnDiff{}, err
		}
		defer c.destroy()
		out, err := ort.NewEmptyTensor[float32](ort.NewShape(1, S, attnHeads*attnDim))
		if err != nil {
			return attnDiff{}, err
		}
		defer out.Destroy()
		if err := s.Run([]ort.Value{in[0], in[1], in[2], c.k[0], c.v[0], seq, tot}, []ort.Value{out, c.k[0], c.v[0]}); err != nil {
			return attnDiff{}, fmt.Errorf("%s: %w", domain, err)
		}
		outs[i], caches[i] = out.GetData(), c
	}
	var d attnDiff
	for i, y := range outs[0] {
		d.out = max(d.out, math.Abs(float64(y-outs[1][i])))
		d.rms += float64(y) * float64(y)
	}
	d.rms = math.Sqrt(d.rms / float64(len(outs[0])))
	for p := past; p < past+newRows; p++ {
		d.rows = max(d.rows, appendedRowErr(caches[0], caches[1], quant, rows, p))
	}
	return d, nil
}
