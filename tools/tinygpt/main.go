// Command tinygpt converts conect2ai's TinyGPT-SLM — a real trained GPT-2-architecture
// question-answering model published as C++ source (gpt_model.cpp and gpt_model.h) — into a
// Hugging Face ONNX folder EdgeChat loads (see internal/testkit/tinygpt).
//
//	go run ./tools/tinygpt --out ~/.cache/edgechat/models/tinygpt-slm
//	go run ./tools/tinygpt --out DIR --source gpt_model.cpp --header gpt_model.h
//
// Without --source it converts the copy kept in internal/testkit/tinygpt/testdata.
// tools/tinygpt/reference.py is the independent numpy forward pass of the original.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"edgechat/internal/testkit/tinygpt"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "tinygpt:", err)
		}
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tinygpt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "folder to write the converted model to (required)")
	src := fs.String("source", "", "the model's gpt_model.cpp (default: the copy in testdata)")
	hdr := fs.String("header", "", "its gpt_model.h (required with --source)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		return errors.New("usage: tinygpt --out DIR [--source gpt_model.cpp --header gpt_model.h]")
	}
	source, header := tinygpt.Original()
	if *src != "" || *hdr != "" {
		if *src == "" || *hdr == "" {
			return errors.New("--source and --header go together: the C++ file and its header")
		}
		var err error
		if source, err = os.ReadFile(*src); err != nil {
			return err
		}
		if header, err = os.ReadFile(*hdr); err != nil {
			return err
		}
	}
	c, err := tinygpt.Parse(source, header)
	if err != nil {
		return fmt.Errorf("reading the checkpoint: %w", err)
	}
	if err := tinygpt.Write(*out, c); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote TinyGPT-SLM (%d layers, hidden %d, %d heads, %d words, %d positions) to %s\n",
		c.Layers, c.Hidden, c.Heads, c.Vocab, c.Positions, *out)
	return nil
}
