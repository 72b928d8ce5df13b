// Command constrainbench measures what constrained decoding costs: the engine's decode
// tokens/s on the same model and prompt with a response format (a JSON schema) and without,
// in interleaved rounds, and the time the first constrained reply spends building the
// vocabulary's trie.
//
//	go run ./tools/mkmodel --preset qwen3-0.6b-shape --quant q4 --out /tmp/q4
//	go run ./tools/constrainbench --model /tmp/q4 --tokens 128 --rounds 4
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"edgechat/inference"
	"edgechat/inference/ort/decoder"
	"edgechat/internal/cpuprof"
	"edgechat/internal/paths"
	"edgechat/reply"
)

var (
	model   = flag.String("model", "", "model folder")
	tokens  = flag.Int("tokens", 128, "tokens per reply (the reply is cut there)")
	rounds  = flag.Int("rounds", 4, "interleaved rounds of each case")
	threads = flag.Int("threads", 2, "CPU threads")
	profile = flag.String("cpuprofile", "", "write a CPU profile of the timed rounds to this file")
)

// cases are the replies compared: free text, and two schemas — one that is mostly inside a
// string (the common case: text in a field), one that is mostly structure (keys, numbers,
// enums, nested objects).
var cases = []struct{ name, schema string }{
	{"free text", ""},
	{"json_schema, a text field", `{"type":"object","properties":{"title":{"type":"string"},"text":{"type":"string"}},"required":["title","text"],"additionalProperties":false}`},
	{"json_schema, structure", `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"kind":{"enum":["a","b","c"]},"score":{"type":"number"},"ok":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string","maxLength":8},"maxItems":4}},"required":["id","kind","score","ok","tags"],"additionalProperties":false}}},"required":["items"],"additionalProperties":false}`},
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "constrainbench:", err)
		os.Exit(1)
	}
}

func run() error {
	flag.Parse()
	if *model == "" {
		return errors.New("--model is required: a model folder (go run ./tools/mkmodel --preset qwen3-0.6b-shape --quant q4 --out /tmp/q4)")
	}
	eng, err := inference.New(inference.Config{Open: decoder.Opener(""), Preload: true, OneShot: true, Routes: []inference.RouteConfig{{
		Name: "cpu", Model: *model, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu", Threads: *threads}, GraphCache: filepath.Join(paths.CacheDir(), "graphs")},
	}}})
	if err != nil {
		return err
	}
	defer eng.Close()
	ask := func(schema string) (*reply.Summary, error) {
		zero := 0.0
		req := reply.Request{Messages: []reply.Message{{Role: "user", Content: "Write a short note about lighthouses."}},
			MaxTokens: *tokens, NoLookup: true, Sampling: reply.Sampling{Temperature: &zero}}
		if schema != "" {
			req.Format = &reply.Format{Type: reply.FormatJSONSchema, Schema: json.RawMessage(schema)}
		}
		col := reply.Collect(context.Background(), mustGenerate(eng, req))
		if col.Summary.Err != nil {
			return nil, col.Summary.Err
		}
		if schema != "" && !json.Valid([]byte(col.Text)) && col.Summary.FinishReason != reply.FinishLength {
			return nil, fmt.Errorf("the constrained reply is not JSON: %q", col.Text)
		}
		return col.Summary, nil
	}
	// The first constrained reply builds the vocabulary's trie: its first token comes later.
	plain, err := ask("")
	if err != nil {
		return err
	}
	first, err := ask(cases[1].schema)
	if err != nil {
		return err
	}
	fmt.Printf("first token: %.0f ms free, %.0f ms for the first constrained reply (vocabulary trie built then)\n", plain.TTFTMillis(), first.TTFTMillis())
	stop, err := cpuprof.Start(*profile)
	if err != nil {
		return err
	}
	defer stop()
	tps := make([][]float64, len(cases))
	for r := range *rounds {
		for i, c := range cases {
			sum, err := ask(c.schema)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			tps[i] = append(tps[i], sum.DecodeTPS)
			fmt.Printf("round %d  %-28s %6.1f tokens/s  (%d tokens, %s)\n", r+1, c.name, sum.DecodeTPS, sum.GeneratedTokens, sum.FinishReason)
		}
	}
	base := median(tps[0])
	for i, c := range cases {
		fmt.Printf("median %-28s %6.1f tokens/s  %.3f× free text\n", c.name, median(tps[i]), median(tps[i])/base)
	}
	return nil
}

func mustGenerate(eng *inference.Engine, req reply.Request) <-chan reply.Event {
	ch, err := eng.Generate(context.Background(), req)
	if err != nil {
		out := make(chan reply.Event, 1)
		out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishError, Err: err}}
		close(out)
		return out
	}
	return ch
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
