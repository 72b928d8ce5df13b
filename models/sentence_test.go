package models

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/synth"
	"edgechat/onnx/proto"
)

var sentenceCases = []struct {
	name    string
	files   map[string]string
	want    SentenceConfig
	wantErr string
}{
	{"nothing", nil, SentenceConfig{Pooling: PoolMean}, ""},
	{"all-MiniLM", map[string]string{
		"modules.json":              `[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},{"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"},{"idx":2,"name":"2","path":"2_Normalize","type":"sentence_transformers.models.Normalize"}]`,
		"1_Pooling/config.json":     `{"word_embedding_dimension":384,"pooling_mode_cls_token":false,"pooling_mode_mean_tokens":true,"pooling_mode_max_tokens":false,"pooling_mode_mean_sqrt_len_tokens":false}`,
		"sentence_bert_config.json": `{"max_seq_length":256,"do_lower_case":false}`,
		"tokenizer_config.json":     `{"model_max_length":512,"do_lower_case":true}`,
		"config.json":               `{"model_type":"bert","architectures":["BertModel"],"max_position_embeddings":512}`,
	}, SentenceConfig{Pooling: PoolMean, Normalize: true, MaxLength: 256, ModelType: "bert", Architectures: []string{"BertModel"}}, ""},
	{"bge CLS, model_max_length", map[string]string{
		"modules.json":          `[{"path":"","type":"sentence_transformers.models.Transformer"},{"path":"1_Pooling","type":"sentence_transformers.models.Pooling"},{"path":"2_Normalize","type":"sentence_transformers.models.Normalize"}]`,
		"1_Pooling/config.json": `{"pooling_mode_cls_token":true}`,
		"tokenizer_config.json": `{"model_max_length":1000000000000000019884624838656}`,
		"config.json":           `{"model_type":"bert","max_position_embeddings":512}`,
	}, SentenceConfig{Pooling: PoolCLS, Normalize: true, MaxLength: 512, ModelType: "bert"}, ""},
	{"e5 prompts, pooling elsewhere", map[string]string{
		"modules.json":                      `[{"path":"","type":"sentence_transformers.models.Transformer"},{"path":"pool","type":"sentence_transformers.models.Pooling"}]`,
		"pool/config.json":                  `{"pooling_mode":"max"}`,
		"config_sentence_transformers.json": `{"prompts":{"query":"query: ","passage":"passage: "}}`,
	}, SentenceConfig{Pooling: PoolMax, QueryPrompt: "query: ", PassagePrompt: "passage: "}, ""},
	{"document prompt, xlm-r positions", map[string]string{
		"config_sentence_transformers.json": `{"prompts":{"query":"q: ","document":"d: "}}`,
		"config.json":                       `{"model_type":"xlm-roberta","max_position_embeddings":514,"pad_token_id":1}`,
		"tokenizer_config.json":             `{"model_max_length":8192}`,
	}, SentenceConfig{Pooling: PoolMean, QueryPrompt: "q: ", PassagePrompt: "d: ", MaxLength: 512, ModelType: "xlm-roberta"}, ""},
	{"last token", map[string]string{"1_Pooling/config.json": `{"pooling_mode_lasttoken":true}`}, SentenceConfig{Pooling: PoolLast}, ""},
	{"two poolings", map[string]string{"1_Pooling/config.json": `{"pooling_mode_cls_token":true,"pooling_mode_mean_tokens":true}`}, SentenceConfig{}, "several poolings at once (cls, mean)"},
	{"weighted mean", map[string]string{"1_Pooling/config.json": `{"pooling_mode_weightedmean_tokens":true}`}, SentenceConfig{}, "asks for weightedmean pooling"},
	{"bad json", map[string]string{"modules.json": `[{`}, SentenceConfig{}, "modules.json is not valid"},
}

func TestParseSentenceConfig(t *testing.T) {
	for _, tc := range sentenceCases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string][]byte{}
			for k, v := range tc.files {
				files[filepath.FromSlash(k)] = []byte(v)
			}
			got, err := ParseSentenceConfig(files)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// The same files on disk read the same.
			dir := t.TempDir()
			for k, v := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(k))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(v), 0o644)
			}
			if disk, err := ReadSentenceConfig(dir); err != nil || !cmp.Equal(disk, got) {
				t.Errorf("from disk %+v, %v", disk, err)
			}
		})
	}
}

func FuzzSentenceConfig(f *testing.F) {
	for _, tc := range sentenceCases {
		f.Add(tc.files["modules.json"], tc.files["1_Pooling/config.json"], tc.files["config_sentence_transformers.json"], tc.files["config.json"])
	}
	f.Fuzz(func(t *testing.T, modules, pooling, st, cfg string) {
		c, err := ParseSentenceConfig(map[string][]byte{"modules.json": []byte(modules), filepath.Join("1_Pooling", "config.json"): []byte(pooling),
			"config_sentence_transformers.json": []byte(st), "config.json": []byte(cfg)})
		if err != nil {
			return
		}
		switch c.Pooling {
		case PoolMean, PoolCLS, PoolMax, PoolLast:
		default:
			t.Fatalf("pooling %q", c.Pooling)
		}
		if c.MaxLength < 0 {
			t.Fatalf("max length %d", c.MaxLength)
		}
	})
}

func TestFillPrompts(t *testing.T) {
	for _, tc := range []struct{ name, query, passage string }{
		{"intfloat--e5-small-v2", "query: ", "passage: "},
		{"multilingual-e5-base", "query: ", "passage: "},
		{"BAAI/bge-small-en-v1.5", bgeEnQuery, ""},
		{"bge-large-zh-v1.5", bgeZhQuery, ""},
		{"bge-m3", "", ""},
		{"bge-reranker-base", "", ""},
		{"nomic-embed-text-v1.5", "search_query: ", "search_document: "},
		{"all-MiniLM-L6-v2", "", ""},
	} {
		var c SentenceConfig
		c.FillPrompts(tc.name)
		if c.QueryPrompt != tc.query || c.PassagePrompt != tc.passage {
			t.Errorf("%s: %q, %q; want %q, %q", tc.name, c.QueryPrompt, c.PassagePrompt, tc.query, tc.passage)
		}
	}
	c := SentenceConfig{QueryPrompt: "own: "}
	if c.FillPrompts("e5-small"); c.QueryPrompt != "own: " || c.PassagePrompt != "" {
		t.Errorf("the folder's own prompts were replaced: %+v", c)
	}
}

// A BERT embedding folder is an embedding model and an encoder; a cross-encoder is a
// reranker, never a chat model.
func TestBertKinds(t *testing.T) {
	for _, tc := range []struct {
		reranker bool
		kind     string
	}{{false, KindEmbedding}, {true, KindReranker}} {
		o := synth.BertTiny()
		o.Reranker = tc.reranker
		dir := t.TempDir()
		if err := synth.WriteBert(dir, o); err != nil {
			t.Fatal(err)
		}
		f, err := Open(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if k := f.Kind(); k != tc.kind {
			t.Errorf("reranker %v: kind %s, want %s", tc.reranker, k, tc.kind)
		}
		info, err := proto.ReadInfo(f.Model)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := ReadSentenceConfig(dir)
		if err != nil || !cfg.IsEncoder(info.Inputs) {
			t.Errorf("reranker %v: not an encoder (%v)", tc.reranker, err)
		}
		if _, err := DescribeReranker(f.Model, info.Inputs, info.Outputs); (err == nil) != tc.reranker {
			t.Errorf("reranker %v: DescribeReranker: %v", tc.reranker, err)
		}
		r, err := Inspect(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{false: "mean pooling, L2-normalised, at most 64 tokens", true: "one score per (question, passage) pair, at most 64 tokens"}[tc.reranker]
		if r.Kind != tc.kind || r.Encoding != want {
			t.Errorf("inspect: kind %s, encoding %q; want %q", r.Kind, r.Encoding, want)
		}
	}
}
