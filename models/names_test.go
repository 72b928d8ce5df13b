package models

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/testkit/synth"
	"edgechat/onnx/proto"
)

// hostileNames are file names a downloaded model's files could give that lead out of its
// folder, or that Windows reads as something else.
var hostileNames = []string{"../outside.onnx", "../../../etc/passwd", "/etc/passwd", `..\..\x.onnx`, "C:/Windows/x.onnx", "model.onnx:ads", "NUL", "sub/../../x.onnx"}

// editJSON rewrites the JSON file p through edit.
func editJSON(t *testing.T, p string, edit func(m map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConfigNamesStayInside: genai_config.json names the model file (layout B) and each
// pipeline stage's file (layout D): a name that leaves the folder is refused, even when
// the file it names exists.
func TestConfigNamesStayInside(t *testing.T) {
	for _, layout := range []synth.Layout{synth.LayoutGenAI, synth.LayoutBundle} {
		dir := tinyFolder(t, layout)
		// Files that the hostile names reach, so that only the check can refuse them.
		for _, p := range []string{filepath.Join(dir, "..", "outside.onnx"), filepath.Join(dir, "..", "x.onnx")} {
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range hostileNames {
			editJSON(t, filepath.Join(dir, "genai_config.json"), func(m map[string]any) {
				dec := m["model"].(map[string]any)["decoder"].(map[string]any)
				if layout == synth.LayoutGenAI {
					dec["filename"] = name
					return
				}
				stage := dec["pipeline"].([]any)[1].(map[string]any)
				for k := range stage {
					stage[k].(map[string]any)["filename"] = name
				}
			})
			_, err := Open(dir, "")
			if err == nil || !strings.Contains(err.Error(), "not a file inside") {
				t.Errorf("layout %s, file %q: Open = %v, want a refusal", layout, name, err)
			}
		}
	}
}

// TestGraphNamesStayInside: a graph's external data location and its NPU context binary are
// names from the download: one that leaves the folder is refused before anything opens it.
func TestGraphNamesStayInside(t *testing.T) {
	dir := t.TempDir()
	for _, name := range hostileNames {
		for _, epContext := range []bool{false, true} {
			m := &proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}}}
			m.Graph.Inputs = []proto.ValueInfo{{Name: "x", Type: proto.Float, Dims: proto.Dims(1)}}
			m.Graph.Outputs = []proto.ValueInfo{{Name: "y", Type: proto.Float, Dims: proto.Dims(1)}}
			if epContext {
				m.Graph.Nodes = []proto.Node{{Name: "ctx", OpType: "EPContext", Domain: "com.microsoft", Inputs: []string{"x"}, Outputs: []string{"y"},
					Attrs: []proto.Attr{proto.IntAttr("embed_mode", 0), proto.StringAttr("ep_cache_context", name), proto.StringAttr("source", "QNN")}}}
			} else {
				w := proto.FloatTensor("w", []int64{1}, []float32{1})
				w.Raw, w.External = nil, &proto.ExternalData{Location: name, Length: 4}
				m.Graph.Initializers = []*proto.Tensor{w}
				m.Graph.Nodes = []proto.Node{{Name: "add", OpType: "Add", Inputs: []string{"x", "w"}, Outputs: []string{"y"}}}
			}
			p := filepath.Join(dir, "model.onnx")
			if err := m.WriteFile(p, proto.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			_, err := ReadGraph(p)
			if err == nil || !strings.Contains(err.Error(), "not a file beside it") {
				t.Errorf("EPContext %v, name %q: ReadGraph = %v, want a refusal", epContext, name, err)
			}
		}
	}
}
