package main

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/synth"
)

func TestParseBert(t *testing.T) {
	tiny := synth.BertTiny()
	with := func(f func(*synth.BertOptions)) synth.BertOptions {
		o := tiny
		f(&o)
		return o
	}
	for _, tc := range []struct {
		name    string
		args    []string
		want    synth.BertOptions
		wantErr string
	}{
		{"embedding", []string{"--bert", "embedding"}, tiny, ""},
		{"reranker", []string{"--bert=reranker", "--layers", "3"}, with(func(o *synth.BertOptions) { o.Reranker, o.Layers = true, 3 }), ""},
		{"e5", []string{"--bert", "embedding", "--pooling", "cls", "--query-prompt", "query: ", "--passage-prompt", "passage: ", "--max-seq-length", "16", "--no-normalize", "--no-token-type-ids", "--sentence-embedding"},
			with(func(o *synth.BertOptions) {
				o.Pooling, o.MaxSeqLength, o.Normalize, o.NoTokenTypeIDs, o.SentenceEmbedding = "cls", 16, false, true, true
				o.Prompts = map[string]string{"query": "query: ", "passage": "passage: "}
			}), ""},
		{"bad kind", []string{"--bert", "decoder"}, synth.BertOptions{}, `unknown --bert "decoder"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !isBert(tc.args) {
				t.Fatal("not taken for a BERT")
			}
			dir, got, err := parseBert(append([]string{"--out", "/m"}, tc.args...), io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || dir != "/m" {
				t.Fatalf("%q, %v", dir, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if isBert([]string{"--family", "gpt2"}) {
		t.Error("a family taken for a BERT")
	}
}
