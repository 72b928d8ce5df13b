// Command int8twin writes the int8 twin of a decoder graph (optimize.Int8Twin): every 4-bit
// MatMulNBits without zero points (or those whose weight name contains one of --match's
// strings) re-encoded as 8-bit with the same block scales, so the twin computes the same
// products. It measures whether 8-bit weights (no nibble unpacking, twice the bytes) run
// faster than 4-bit ones on a CPU: on the x86-64 AVX-512 VNNI machine of issue 35 they did
// not (decode 1.26–1.45× the CPU time, prefill 0.90–0.92×); Arm64's kernels differ.
//
//	go run ./tools/int8twin --in copy/model_q4.onnx --out /tmp/twin [--match lm_head,down_proj]
//	go run ./tools/cpubench --threads 2 int4=copy/model_q4.onnx int8=/tmp/twin/model_q4.onnx
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"edgechat/onnx/optimize"
)

func main() {
	in := flag.String("in", "", "graph (.onnx) with 4-bit MatMulNBits")
	out := flag.String("out", "", "folder of the twin")
	match := flag.String("match", "", "comma-separated parts of weight names to re-encode (empty: all)")
	dq := flag.Bool("dq", false, "write the int8 prompt twin instead (optimize.DQTwin: int8 weights with one scale a column, activations with one a row, MatMulIntegerToFloat; the LM head stays 4-bit)")
	skip := flag.String("skip", "", "--dq: comma-separated parts of weight names to leave 4-bit")
	group := flag.Int64("group", 0, "--dq: quantize activations with one scale a row and group of this many columns (0: one a row)")
	groupOnly := flag.String("group-only", "", "--dq --group: comma-separated parts of weight names whose activations are grouped (empty: all)")
	flag.Parse()
	if *in == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "int8twin: --in and --out are required")
		os.Exit(2)
	}
	twin, what := optimize.Int8Twin, "MatMulNBits re-encoded as 8-bit"
	if *dq {
		twin = func(in, out, _ string) (int, int64, error) {
			return optimize.DQTwin(in, out, optimize.DQOptions{MaxN: 1 << 16, Skip: *skip, GroupWidth: *group, GroupOnly: *groupOnly})
		}
		what = "MatMulNBits rewritten as per-row quantizers and MatMulIntegerToFloat"
	}
	n, size, err := twin(*in, *out, *match)
	if err != nil {
		fmt.Fprintln(os.Stderr, "int8twin:", err)
		os.Exit(1)
	}
	fmt.Printf("%d %s (%d MiB of weights) in %s\n", n, what, size>>20, filepath.Join(*out, filepath.Base(*in)))
}
