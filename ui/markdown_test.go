package ui

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitMarkdown(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []Block
	}{
		{"empty", "", nil},
		{"one paragraph", "Hello **world**", []Block{{Text: "Hello **world**"}}},
		{"two paragraphs", "One\nstill one\n\nTwo\n", []Block{{Text: "One\nstill one"}, {Text: "Two"}}},
		{"code block", "Look:\n```go\nfmt.Println(1)\n\nx := 2\n```\nDone.", []Block{
			{Text: "Look:"},
			{Kind: BlockCode, Lang: "go", Text: "fmt.Println(1)\n\nx := 2"},
			{Text: "Done."},
		}},
		{"open code block", "```py\nprint(1)\n", []Block{{Kind: BlockCode, Lang: "py", Text: "print(1)"}}},
		{"loose list stays together", "- a\n\n- b\n\nAfter", []Block{{Text: "- a\n\n- b"}, {Text: "After"}}},
		{"tilde fence", "~~~\nx\n~~~\n", []Block{{Kind: BlockCode, Text: "x"}}},
		{"indented code keeps its indent", "Text\n\n    code line\n    more\n", []Block{{Text: "Text"}, {Text: "    code line\n    more"}}},
		{"inline backticks are not a fence", "```not a fence` here\n\nnext", []Block{{Text: "```not a fence` here"}, {Text: "next"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, SplitMarkdown(tt.doc)); diff != "" {
				t.Errorf("SplitMarkdown(%q) (-want +got):\n%s", tt.doc, diff)
			}
		})
	}
}

// TestSplitterChunking feeds every document one byte at a time and in one piece: the blocks
// settled plus the final tail must not depend on how the text was chunked.
func TestSplitterChunking(t *testing.T) {
	docs := []string{
		"Intro line.\n\n```go\nfunc main() {}\n```\n\n1. one\n2. two\n\nEnd *here*.",
		"# Title\n\nPara\n\n\n\n~~~\ncode\n~~~",
		"héllo wörld — ünïcode\n\n```\nunterminated",
	}
	for _, doc := range docs {
		want := SplitMarkdown(doc)
		s := NewSplitter()
		var got []Block
		for i := 0; i < len(doc); i++ {
			got = append(got, s.Add(doc[i:i+1])...)
		}
		got = append(got, s.Close()...)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("byte-by-byte split of %q (-want +got):\n%s", doc, diff)
		}
		if s.Text() != doc {
			t.Errorf("Text() = %q, want %q", s.Text(), doc)
		}
	}
}

func TestSplitterTail(t *testing.T) {
	s := NewSplitter()
	s.Add("Done.\n\nPartial sent")
	if got, want := s.Tail(), (Block{Text: "Partial sent"}); got != want {
		t.Errorf("Tail() = %+v, want %+v", got, want)
	}
	s.Add("ence\n\n```sh\nls -l")
	if got, want := s.Tail(), (Block{Kind: BlockCode, Lang: "sh", Text: "ls -l"}); got != want {
		t.Errorf("Tail() in open fence = %+v, want %+v", got, want)
	}
}

func FuzzSplitter(f *testing.F) {
	for _, s := range []string{"a\n\nb", "```\nx\n```", "- a\n\n- b", strings.Repeat("x ", 50)} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, doc string, step int) {
		if step <= 0 || step > 64 {
			step = 1
		}
		s := NewSplitter()
		var got []Block
		for i := 0; i < len(doc); i += step {
			got = append(got, s.Add(doc[i:min(i+step, len(doc))])...)
		}
		got = append(got, s.Close()...)
		if s.Text() != doc {
			t.Fatalf("text lost")
		}
		if diff := cmp.Diff(SplitMarkdown(doc), got); diff != "" {
			t.Errorf("split of %q in %d-byte chunks differs from the whole (-whole +chunked):\n%s", doc, step, diff)
		}
	})
}
