package synth

import (
	"path/filepath"
	"testing"

	"edgechat/internal/testkit/testenv"
)

// ONNX's own checker accepts the BERT graphs, embedding and reranker, with and without
// token_type_ids or a sentence_embedding output.
func TestBertGraphsCheck(t *testing.T) {
	var files []string
	for i, edit := range []func(o *BertOptions){
		func(*BertOptions) {},
		func(o *BertOptions) { o.NoTokenTypeIDs, o.SentenceEmbedding = true, true },
		func(o *BertOptions) { o.Reranker = true },
	} {
		o := BertTiny()
		edit(&o)
		dir := filepath.Join(t.TempDir(), string(rune('a'+i)))
		if err := WriteBert(dir, o); err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.Join(dir, "onnx", "model.onnx"))
	}
	testenv.CheckONNX(t, files...)
	o := BertTiny()
	o.Pooling = "weighted"
	if err := WriteBert(t.TempDir(), o); err == nil {
		t.Error("an unknown pooling was written")
	}
}
