package synth

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/gguf"
	"edgechat/internal/paths"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/proto"
)

// ggufTwin writes the tiny q4 model's GGUF twin once per test.
func ggufTwin(t *testing.T) (string, Options) {
	t.Helper()
	o := Tiny()
	o.Quant, o.TokenizerDir = QuantQ4, testenv.TokenizerDir(t, "qwen3")
	path := filepath.Join(t.TempDir(), "twin.gguf")
	if err := WriteGGUF(path, o); err != nil {
		t.Fatal(err)
	}
	return path, o
}

// TestGGUFTwin reads the twin back: llama.cpp's qwen3 tensor names and ggml shapes, and
// Q4_0 blocks that, decoded the ggml way (element j low, j+16 high, (q-8)·d), give exactly
// the values the ONNX MatMulNBits weight stands for.
func TestGGUFTwin(t *testing.T) {
	path, o := ggufTwin(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := gguf.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ti := range h.Tensors {
		if strings.HasPrefix(ti.Name, "blk.") && !strings.HasPrefix(ti.Name, "blk.0.") {
			continue
		}
		got[ti.Name] = fmt.Sprint(ti.Type, ti.Dims)
	}
	want := map[string]string{
		"token_embd.weight": "0 [64 151936]", "output.weight": "2 [64 151936]", "output_norm.weight": "0 [64]",
		"blk.0.attn_norm.weight": "0 [64]", "blk.0.attn_q.weight": "2 [64 64]", "blk.0.attn_k.weight": "2 [64 32]",
		"blk.0.attn_v.weight": "2 [64 32]", "blk.0.attn_output.weight": "2 [64 64]", "blk.0.attn_q_norm.weight": "0 [16]",
		"blk.0.attn_k_norm.weight": "0 [16]", "blk.0.ffn_norm.weight": "0 [64]", "blk.0.ffn_gate.weight": "2 [64 128]",
		"blk.0.ffn_up.weight": "2 [64 128]", "blk.0.ffn_down.weight": "2 [128 64]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tensors (-want +got):\n%s", diff)
	}
	if n := len(h.Metadata["tokenizer.ggml.tokens"].([]string)); n != o.Vocab {
		t.Errorf("%d tokens, want the model's vocabulary %d", n, o.Vocab)
	}
	if a := h.Metadata["general.architecture"]; a != "qwen3" {
		t.Errorf("architecture %v", a)
	}

	// Decode blk.0.ffn_down (K = 128, N = 64) from the file and compare with MatMulNBits.
	w := newWeights(o)
	q := quantizeQ4(matrix{data: w.layers[0].down, k: o.Intermediate, n: o.Hidden}, false)
	var ti gguf.TensorInfo
	for _, x := range h.Tensors {
		if x.Name == "blk.0.ffn_down.weight" {
			ti = x
		}
	}
	raw := make([]byte, q.N*q.Blocks()*gguf.Q4_0BlockBytes)
	if _, err := f.ReadAt(raw, ti.Offset); err != nil {
		t.Fatal(err)
	}
	for n := range q.N {
		for b := range q.Blocks() {
			blk := raw[(n*q.Blocks()+b)*gguf.Q4_0BlockBytes:]
			d := proto.Float16ToFloat32(uint16(blk[0]) | uint16(blk[1])<<8)
			for j := range Q4Block {
				nib := blk[2+j%16] & 0xf
				if j >= 16 {
					nib = blk[2+j%16] >> 4
				}
				k := b*Q4Block + j
				if g, want := float32(int(nib)-8)*d, q.Dequant(k, n); g != want {
					t.Fatalf("weight (%d, %d): GGUF holds %g, MatMulNBits %g", k, n, g, want)
				}
			}
		}
	}
}

// TestGGUFTwinInLlamaCpp runs the twin in llama.cpp (tools/llamapeer installs it into the
// cache) and the q4 ONNX file in ONNX Runtime on the same prompt ids. llama.cpp computes
// Q4_0 weights against int8-quantized activations, ONNX Runtime's q4 path in float32, so
// the logits differ by the activation rounding (~1%) and a chaotic random model's greedy
// paths may part after a while; the first tokens must agree.
func TestGGUFTwinInLlamaCpp(t *testing.T) {
	script := filepath.Join(paths.CacheDir(), "llama", "bench.mjs")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("llama.cpp peer not installed (%v): run tools/llamapeer/install.sh", err)
	}
	path, o := ggufTwin(t)
	ids := []int64{151644, 872, 198, 9707, 11, 1879, 0, 220, 108386, 220}
	want := openHF(t, o).greedy(t, ids, 8)
	var csv []string
	for _, id := range ids {
		csv = append(csv, fmt.Sprint(id))
	}
	out, err := exec.Command("node", script, "--model", path, "--prompt-ids", strings.Join(csv, ","), "--tokens", "7", "--repeat", "1").Output()
	if err != nil {
		t.Fatalf("llama.cpp: %v", err)
	}
	var r struct{ IDs []int64 }
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("llama.cpp output %q: %v", out, err)
	}
	t.Logf("ONNX Runtime %v\nllama.cpp    %v", want, r.IDs)
	same := 0
	for same < min(len(want), len(r.IDs)) && want[same] == r.IDs[same] {
		same++
	}
	if same < 5 {
		t.Errorf("llama.cpp and ONNX Runtime agree on %d greedy tokens, want ≥ 5", same)
	}
}
