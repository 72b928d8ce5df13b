//go:build linux && amd64 && cgo

package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"edgechat/internal/cputime"

	ort "github.com/yalue/onnxruntime_go"
)

// promptCase is one --attn-prompt prompt: rows new rows after past cached ones.
type promptCase struct{ rows, past int }

func parsePrompts(s string) ([]promptCase, error) {
	var out []promptCase
	for _, f := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(f), "@")
		n, err1 := strconv.Atoi(a)
		p, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n < 2 || p < 0 {
			return nil, fmt.Errorf("--attn-prompt %q: want ROWS@PAST items (e.g. 428@0,512@2500), comma-separated, ROWS at least 2", s)
		}
		out = append(out, promptCase{n, p})
	}
	return out, nil
}

// promptRun is one run of a prompt's chunk: its inputs and output.
type promptRun struct {
	q, k, v, seq, tot ort.Value
	out               [4]*ort.Tensor[float32] // one per side
}

// promptBench times the prompts of --attn-prompt on both sides, float32 and int8 caches, in
// the runs the app's decoder makes of them (attnChunk rows each, in a buffer of attnCap rows),
// one prompt a side in turn.
func promptBench(dir string, kScale, vScale []float32) error {
	cases, err := parsePrompts(*attnPrompt)
	if err != nil {
		return err
	}
	for _, pc := range cases {
		capRows := attnCap(pc.past + pc.rows)
		chunk := attnChunk(capRows)
		sides := attnSides4()
		if err := attnOpen(dir, sides, capRows, kScale, vScale); err != nil {
			return err
		}
		caches := map[bool]*attnCache{}
		for _, i8 := range []bool{false, true} {
			if caches[i8], err = newAttnCache(i8, capRows, 1, 1); err != nil {
				return err
			}
		}
		r := rand.New(rand.NewPCG(uint64(pc.past), uint64(pc.rows)))
		vec := func(n int) []float32 {
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
			return v
		}
		var runs []promptRun
		for s0 := 0; s0 < pc.rows; s0 += chunk {
			n := int64(min(chunk, pc.rows-s0))
			var pr promptRun
			pr.q, _ = ort.NewTensor(ort.NewShape(1, n, attnHeads*attnDim), vec(int(n)*attnHeads*attnDim))
			pr.k, _ = ort.NewTensor(ort.NewShape(1, n, attnKV*attnDim), vec(int(n)*attnKV*attnDim))
			pr.v, _ = ort.NewTensor(ort.NewShape(1, n, attnKV*attnDim), vec(int(n)*attnKV*attnDim))
			end := int32(pc.past + s0 + int(n))
			pr.seq, _ = ort.NewTensor(ort.NewShape(1), []int32{end - 1})
			pr.tot, _ = ort.NewTensor(ort.NewShape(1), []int32{end})
			for i := range pr.out {
				if pr.out[i], err = ort.NewEmptyTensor[float32](ort.NewShape(1, n, attnHeads*attnDim)); err != nil {
					return err
				}
			}
			runs = append(runs, pr)
		}
		prompt := func(i int, s *attnSide) error {
			c := caches[s.int8]
			for _, pr := range runs {
				if err := s.sess.Run([]ort.Value{pr.q, pr.k, pr.v, c.k[0], c.v[0], pr.seq, pr.tot}, []ort.Value{pr.out[i], c.k[0], c.v[0]}); err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
			}
			return nil
		}
		const warmup = 2
		for it := range *rounds + warmup {
			for j := range sides {
				i := (j + it) % len(sides)
				s := sides[i]
				start, c0 := time.Now(), cputime.Used()
				if err := prompt(i, s); err != nil {
					return err
				}
				if it >= warmup {
					s.wall = append(s.wall, time.Since(start).Seconds())
					s.cpu = append(s.cpu, (cputime.Used() - c0).Seconds())
				}
			}
		}
		fmt.Printf("\nprompt of %d rows after %d (buffer %d rows, runs of %d as the app's decoder makes them: %d), %d threads, %d rounds (spinning off): ms a prompt\n",
			pc.rows, pc.past, capRows, chunk, len(runs), *threads, *rounds)
		printSides(sides)
		last := runs[len(runs)-1]
		for _, b := range []int{0, 2} {
			d, scale := 0.0, 0.0
			for k, w := range last.out[b].GetData() {
				d = max(d, math.Abs(float64(w-last.out[b+1].GetData()[k])))
				scale = max(scale, math.Abs(float64(w)))
			}
			fmt.Printf("  %s against %s, last run's output: max |diff| %.2e of largest %.3g\n", sides[b+1].name, sides[b].name, d, scale)
		}
		for _, pr := range runs {
			for _, x := range []ort.Value{pr.q, pr.k, pr.v, pr.seq, pr.tot} {
				x.Destroy()
			}
			for _, o := range pr.out {
				o.Destroy()
			}
		}
		caches[false].destroy()
		caches[true].destroy()
		for _, s := range sides {
			s.sess.Destroy()
		}
	}
	return nil
}
