package decoder

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/onnx/proto"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyModel copies a model folder into a temporary one, leaving out the named files.
func copyModel(t *testing.T, from string, without ...string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if slices.Contains(without, rel) {
			return nil
		}
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(dst)
		if err != nil {
			return err
		}
		defer out.Close()
		_, err = io.Copy(out, in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// notADecoder replaces a model folder's ONNX file with a graph that is not a decoder.
func notADecoder(t *testing.T, from string) string {
	t.Helper()
	d := copyModel(t, from)
	m := &proto.Model{
		IRVersion: 8, Producer: "edgechat-test", Opsets: []proto.Opset{{Version: 17}},
		Graph: proto.Graph{
			Name:    "identity",
			Nodes:   []proto.Node{{OpType: "Identity", Inputs: []string{"pixels"}, Outputs: []string{"out"}}},
			Inputs:  []proto.ValueInfo{{Name: "pixels", Type: proto.Float, Dims: proto.Dims(1, 3)}},
			Outputs: []proto.ValueInfo{{Name: "out", Type: proto.Float, Dims: proto.Dims(1, 3)}},
		},
	}
	if err := m.WriteFile(filepath.Join(d, "onnx", "model.onnx"), proto.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return d
}

// smallVocab writes a model whose logits are narrower than Qwen3's tokenizer.
func smallVocab(t *testing.T) string {
	t.Helper()
	o := synth.Tiny()
	o.Vocab = 1000
	o.TokenizerDir = testenv.TokenizerDir(t, "qwen3")
	d := t.TempDir()
	if err := synth.Write(d, o); err != nil {
		t.Fatal(err)
	}
	return d
}

// The reproduction: Llama 3's tokenizer.json copied into a Qwen3 folder is refused
// at load as the larger case is, and inspect warns.
func TestSmallerTokenizerRefused(t *testing.T) {
	initORT(t)
	d := copyModel(t, tinyModel(t))
	llama, err := os.ReadFile(filepath.Join(testenv.TokenizerDir(t, "llama3"), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(d, "tokenizer.json"), string(llama))
	_, err = loadModel(d, inference.LoadOptions{})
	if !errors.Is(err, inference.ErrVocabMismatch) || !strings.Contains(err.Error(), "23680 ids") || !strings.Contains(err.Error(), "belongs to another model") {
		t.Fatalf("load: %v; want ErrVocabMismatch naming the 23680 ids without text", err)
	}
	r, err := models.Inspect(d, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "151936") {
		t.Errorf("inspect notes %q do not warn about the vocabulary", r.Notes)
	}
}
