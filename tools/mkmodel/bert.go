package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"edgechat/internal/testkit/synth"
)

// isBert reports whether the command line asks for a BERT-family model (--bert).
func isBert(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		return a == "--bert" || a == "-bert" || strings.HasPrefix(a, "--bert=") || strings.HasPrefix(a, "-bert=")
	})
}

// runBert writes a BERT-family embedding model or cross-encoder reranker (synth.WriteBert).
func runBert(args []string, stdout, stderr io.Writer) error {
	dir, o, err := parseBert(args, stderr)
	if err != nil {
		return err
	}
	if err := synth.WriteBert(dir, o); err != nil {
		return err
	}
	kind := "embedding model (" + o.Pooling + " pooling)"
	if o.Reranker {
		kind = "cross-encoder reranker"
	}
	vocab := fmt.Sprintf("vocab %d", len(synth.BertVocab()))
	if o.Tokenizer != nil {
		vocab = "the tokenizer given"
	}
	fmt.Fprintf(stdout, "wrote a BERT %s (%d layers, hidden %d, %s, seed %d) to %s\n", kind, o.Layers, o.Hidden, vocab, o.Seed, dir)
	return nil
}

func parseBert(args []string, stderr io.Writer) (string, synth.BertOptions, error) {
	fs := flag.NewFlagSet("mkmodel --bert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := synth.BertTiny()
	out := fs.String("out", "", "folder to write the model to (required)")
	kind := fs.String("bert", "embedding", "embedding (a sentence-transformers export: last_hidden_state) or reranker (a cross-encoder: logits [batch, 1])")
	fs.IntVar(&o.Layers, "layers", o.Layers, "encoder layers")
	fs.IntVar(&o.Hidden, "hidden", o.Hidden, "hidden size")
	fs.IntVar(&o.Heads, "heads", o.Heads, "attention heads")
	fs.IntVar(&o.Intermediate, "intermediate", o.Intermediate, "MLP intermediate size")
	fs.IntVar(&o.MaxPositions, "max-pos", o.MaxPositions, "max_position_embeddings")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "weight seed")
	fs.StringVar(&o.Pooling, "pooling", o.Pooling, "embedding: 1_Pooling's mode, mean, cls or max")
	noNorm := fs.Bool("no-normalize", false, "embedding: no Normalize module in modules.json")
	query := fs.String("query-prompt", "", `embedding: config_sentence_transformers.json's "query" prompt (e5: "query: ")`)
	passage := fs.String("passage-prompt", "", `embedding: its "passage" prompt (e5: "passage: ")`)
	fs.IntVar(&o.MaxSeqLength, "max-seq-length", 0, "embedding: sentence_bert_config.json's max_seq_length (0: no such file)")
	fs.BoolVar(&o.NoTokenTypeIDs, "no-token-type-ids", false, "no token_type_ids input")
	fs.BoolVar(&o.SentenceEmbedding, "sentence-embedding", false, "embedding: a sentence_embedding output as well")
	tokFile := fs.String("bert-tokenizer", "", "a real tokenizer.json to use instead of the small WordPiece vocabulary (BERT's, or RoBERTa's with --roberta)")
	fs.BoolVar(&o.Roberta, "roberta", false, "XLM-RoBERTa-shaped (bge-reranker, bge-m3): positions after the padding id, no token_type_ids; needs --bert-tokenizer")
	if err := fs.Parse(args); err != nil {
		return "", o, err
	}
	if fs.NArg() > 0 {
		return "", o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return "", o, errors.New("--out is required: the folder to write the model to")
	}
	switch *kind {
	case "embedding":
	case "reranker":
		o.Reranker = true
	default:
		return "", o, fmt.Errorf("unknown --bert %q: choose embedding or reranker", *kind)
	}
	o.Normalize = !*noNorm
	if *tokFile != "" {
		b, err := os.ReadFile(*tokFile)
		if err != nil {
			return "", o, err
		}
		o.Tokenizer = b
	}
	if *query != "" || *passage != "" {
		o.Prompts = map[string]string{"query": *query, "passage": *passage}
	}
	return *out, o, nil
}
