package decoder

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/reply"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/onnx/proto"
)

func tinyStatic(t testing.TB, maxCache int) string {
	return synthModel(t, fmt.Sprintf("tiny-static-%d", maxCache), func(o *synth.Options) { o.Layout, o.MaxCache = synth.LayoutStatic, maxCache })
}

// The composite is found in its real flat form and gives the dynamic model's greedy tokens for
// prompts of one partial chunk, one full chunk, and a partial chunk followed by full ones
// (130 = 2 + 64 + 64: the mask of each later chunk must cover the rows before it).
func TestCompositeMatchesDynamic(t *testing.T) {
	model := tinyStatic(t, 256)
	f, err := models.Open(model, "")
	if err != nil {
		t.Fatal(err)
	}
	if f.Layout != models.LayoutComposite || filepath.Base(f.Prefill) != synth.StaticPrefillFile || filepath.Base(f.Gen) != synth.StaticGenFile {
		t.Fatalf("layout %s, prefill %s, gen %s", f.Layout, f.Prefill, f.Gen)
	}
	dyn, st := loadDecoder(t, tinyModel(t)), loadDecoder(t, model)
	for _, n := range []int{10, 64, 130} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dyn.Truncate(0)
			st.Truncate(0)
			prompt := idsOfLength(n, 3)
			want, got := greedyDecode(t, dyn, prompt, 16), greedyDecode(t, st, prompt, 16)
			requireVaried(t, want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("greedy ids (-dynamic +composite):\n%s", diff)
			}
		})
	}
}

// A reply longer than the cache slides the window: no error, every token asked for. Until
// the graph's view of the cache (M-1 old rows plus the new one) is full the tokens equal the
// dynamic model's; after that the oldest tokens fall out and the replies may part.
func TestCompositeSlidesPastMaxCache(t *testing.T) {
	const m, promptLen, n = 96, 40, 100
	dyn, st := loadDecoder(t, tinyModel(t)), loadDecoder(t, tinyStatic(t, m))
	prompt := idsOfLength(promptLen, 4)
	want, got := greedyDecode(t, dyn, prompt, n), greedyDecode(t, st, prompt, n)
	if len(got) != n {
		t.Fatalf("%d tokens, want %d", len(got), n)
	}
	// Token k comes from the logits at position promptLen-1+k, exact while that run saw every
	// earlier row: promptLen+k ≤ M.
	exact := m - promptLen + 1
	if diff := cmp.Diff(want[:exact], got[:exact]); diff != "" {
		t.Errorf("greedy ids before the window filled (-dynamic +composite):\n%s", diff)
	}
	if l := len(st.Cached()); l != promptLen+n-1 {
		t.Errorf("Cached() holds %d ids, want %d", l, promptLen+n-1)
	}

	e := newTestEngine(t, tinyStatic(t, m), nil)
	_, sum := collect(t, e, context.Background(), greedy("Write a long story about the sea.", 150))
	if sum.Err != nil || sum.FinishReason != reply.FinishLength || sum.GeneratedTokens != 150 {
		t.Errorf("finish %q after %d tokens (prompt %d), error %q", sum.FinishReason, sum.GeneratedTokens, sum.PromptTokens, sum.Err)
	}
}

// A compiled composite whose context binary is not next to it is refused with the file's name.
func TestCompositeMissingContextBinary(t *testing.T) {
	dir := t.TempDir()
	tok := testenv.TokenizerDir(t, "qwen3")
	for _, name := range []string{"tokenizer.json", "tokenizer_config.json"} {
		b, err := os.ReadFile(filepath.Join(tok, name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, name), string(b))
	}
	d := proto.Dims
	in := []proto.ValueInfo{{Name: "input_ids", Type: proto.Int32, Dims: d(1, 64)}}
	out := []proto.ValueInfo{{Name: "logits", Type: proto.Float, Dims: d(1, 64, 151936)}}
	epContextGraph(t, filepath.Join(dir, synth.StaticPrefillFile), "x_qnn.bin", in, out)
	epContextGraph(t, filepath.Join(dir, synth.StaticGenFile), "y_qnn.bin", in, out)
	writeFile(t, filepath.Join(dir, "y_qnn.bin"), "context")
	initORT(t)
	_, err := loadModel(dir, inference.LoadOptions{EP: inference.EP{Name: "qnn"}})
	if err == nil || !strings.Contains(err.Error(), "x_qnn.bin is missing") {
		t.Fatalf("got %v, want an error naming x_qnn.bin", err)
	}
	t.Log(err)
}
