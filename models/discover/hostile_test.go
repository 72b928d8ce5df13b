package discover

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/onnx/proto"
)

// TestHFCacheRefOutside: a hub cache whose refs/main is not a commit id (here it climbs to a
// model folder outside the repository) is skipped with the reason, not followed.
func TestHFCacheRefOutside(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "hub")
	repoDir := filepath.Dir(filepath.Dir(hfRepo(t, cache, "org/evil", "A", "", true)))
	place(t, "A", filepath.Join(cache, "elsewhere"))
	write(t, filepath.Join(repoDir, "refs", "main"), "../../elsewhere")
	res := Scan(Roots{HFHubCache: cache})
	if len(res.Models) != 0 {
		t.Errorf("found %+v through a ref that is not a commit", res.Models)
	}
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "not a commit id") {
		t.Errorf("skipped %+v, want the repository with the reason", res.Skipped)
	}
}

// TestGraphNamingOutside: a model whose graph keeps its weights in a file outside its folder
// is skipped with the reason.
func TestGraphNamingOutside(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "models", "evil")
	place(t, "A", dir, "onnx/model.onnx")
	write(t, filepath.Join(root, "secret.bin"), "1234")
	m := &proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}}}
	m.Graph.Inputs = []proto.ValueInfo{{Name: "x", Type: proto.Float, Dims: proto.Dims(1)}}
	m.Graph.Outputs = []proto.ValueInfo{{Name: "logits", Type: proto.Float, Dims: proto.Dims(1)}}
	w := proto.FloatTensor("w", []int64{1}, []float32{1})
	w.Raw, w.External = nil, &proto.ExternalData{Location: "../../../secret.bin", Length: 4}
	m.Graph.Initializers = []*proto.Tensor{w}
	m.Graph.Nodes = []proto.Node{{Name: "add", OpType: "Add", Inputs: []string{"x", "w"}, Outputs: []string{"logits"}}}
	if err := os.MkdirAll(filepath.Join(dir, "onnx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteFile(filepath.Join(dir, "onnx", "model.onnx"), proto.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "onnx", "../../../secret.bin")); err != nil {
		t.Fatal(err) // the name does reach a file: only the check refuses it
	}
	res := Scan(Roots{User: []string{filepath.Join(root, "models")}})
	if len(res.Models) != 0 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "not a file beside it") {
		t.Errorf("models %+v, skipped %+v: want the folder skipped with the reason", res.Models, res.Skipped)
	}
}
