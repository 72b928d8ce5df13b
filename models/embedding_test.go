package models

import (
	"strings"
	"testing"

	"edgechat/internal/testkit/synth"
)

// An embedding export is told from a chat model by its graph: Kind, Inspect and
// DescribeEmbedding read the onnx-community Qwen3-Embedding interface.
func TestEmbeddingFolder(t *testing.T) {
	emb, chat := tinyFolder(t, synth.LayoutEmbedding), tinyFolder(t, synth.LayoutHF)
	r, err := Inspect(emb, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != KindEmbedding || !strings.Contains(r.Description, "text-embedding model") || r.Hidden != 64 {
		t.Errorf("report kind %q, description %q, hidden %d", r.Kind, r.Description, r.Hidden)
	}
	if r, err := Inspect(chat, ""); err != nil || r.Kind != KindChat {
		t.Errorf("chat model: kind %q, %v", r.Kind, err)
	}
	f, err := Open(emb, "")
	if err != nil {
		t.Fatal(err)
	}
	info, err := ReadGraph(f.Model)
	if err != nil {
		t.Fatal(err)
	}
	io, err := DescribeEmbedding(f.Model, info.Inputs, info.Outputs)
	if err != nil {
		t.Fatal(err)
	}
	if io.Output != "last_hidden_state" || io.Pooled || io.Hidden != 64 || io.AttentionMask == "" || io.PositionIDs == "" ||
		len(io.Past) != 2 || io.KVHeads != 2 || io.HeadDim != 16 || io.KVType != "float32" {
		t.Errorf("embedding interface %+v", io)
	}
	if q := f.QueryPrompt(); q != synth.QueryPrompt {
		t.Errorf("query prompt %q", q)
	}
	cf, _ := Open(chat, "")
	cinfo, _ := ReadGraph(cf.Model)
	if _, err := DescribeEmbedding(cf.Model, cinfo.Inputs, cinfo.Outputs); err == nil || !strings.Contains(err.Error(), "not a text-embedding model") {
		t.Errorf("DescribeEmbedding(chat model) = %v", err)
	}
}
