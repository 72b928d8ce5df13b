package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"edgechat/tokenizer"
)

func init() {
	register(Command{Name: "tokenize", Summary: "encode stdin to token ids (or decode ids) with a tokenizer.json", Run: runTokenize})
}

func runTokenize(env Env) error {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	path := fs.String("tokenizer", "", "tokenizer.json, or the model folder that holds it")
	special := fs.Bool("special", false, "treat the text as app-controlled: added tokens such as <|im_start|> become their ids (decode: keep special tokens)")
	batch := fs.Bool("batch", false, "stdin is a JSON array of strings (with --decode: of id arrays)")
	decode := fs.Bool("decode", false, "stdin is a JSON array of ids; print the text")
	addSpecial := fs.Bool("add-special-tokens", false, "add the special tokens tokenizer.json's post-processor puts around a text, such as Llama 2's BOS")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: edgechat tokenize --tokenizer PATH [--special] [--add-special-tokens] [--batch] [--decode] < input")
		fs.PrintDefaults()
	}
	if err := fs.Parse(env.Args); err != nil {
		return errUsage
	}
	if *path == "" {
		return errors.New("--tokenizer is required: a tokenizer.json or the model folder that holds it")
	}
	tk, err := tokenizer.Load(*path)
	if err != nil {
		return err
	}
	in, err := io.ReadAll(env.Stdin)
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	encode := tk.Encode
	if *special {
		encode = tk.EncodeSpecial
	}
	if *addSpecial {
		plain := encode
		encode = func(s string) []int { return tk.AddSpecialTokens(plain(s)) }
	}
	switch {
	case *decode && *batch:
		var batches [][]int
		if err := json.Unmarshal(in, &batches); err != nil {
			return fmt.Errorf("--decode --batch wants a JSON array of id arrays on stdin: %w", err)
		}
		texts := make([]string, len(batches))
		for i, ids := range batches {
			texts[i] = tk.Decode(ids, !*special)
		}
		return writeJSON(env.Stdout, texts)
	case *decode:
		var ids []int
		if err := json.Unmarshal(in, &ids); err != nil {
			return fmt.Errorf("--decode wants a JSON array of ids on stdin: %w", err)
		}
		_, err := io.WriteString(env.Stdout, tk.Decode(ids, !*special))
		return err
	case *batch:
		var texts []string
		if err := json.Unmarshal(in, &texts); err != nil {
			return fmt.Errorf("--batch wants a JSON array of strings on stdin: %w", err)
		}
		out := make([][]int, len(texts))
		for i, s := range texts {
			out[i] = nonNilIDs(encode(s))
		}
		return writeJSON(env.Stdout, out)
	}
	return writeJSON(env.Stdout, nonNilIDs(encode(string(in))))
}

func nonNilIDs(ids []int) []int {
	if ids == nil {
		return []int{}
	}
	return ids
}

// writeJSON prints v as one line of compact JSON without HTML escaping.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
