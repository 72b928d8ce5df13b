package think

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

func th(s string) Segment { return Segment{Thinking: true, Text: s} }
func an(s string) Segment { return Segment{Text: s} }

// step is one call: Add(chunk), or Flush when flush is set, and the segments it must return.
type step struct {
	chunk string
	flush bool
	want  []Segment
}

func TestParserSteps(t *testing.T) {
	tests := []struct {
		name             string
		startsInThinking bool
		steps            []step
	}{
		{
			name: "whole reply in one chunk",
			steps: []step{
				{chunk: "<think>\nLet me think.\n</think>\n\nThe answer.", want: []Segment{th("Let me think."), an("The answer.")}},
				{flush: true},
			},
		},
		{
			name: "tags split across chunks",
			steps: []step{
				{chunk: "<thi"},
				{chunk: "nk>\nhm", want: []Segment{th("hm")}},
				{chunk: "m\n</th", want: []Segment{th("m")}},
				{chunk: "ink>\n"},
				{chunk: "\nAnswer", want: []Segment{an("Answer")}},
				{chunk: " <think>x</think>", want: []Segment{an(" <think>x</think>")}},
				{flush: true},
			},
		},
		{
			name: "no thinking: answer straight away",
			steps: []step{
				{chunk: "Hello", want: []Segment{an("Hello")}},
				{chunk: ", world", want: []Segment{an(", world")}},
				{flush: true},
			},
		},
		{
			name: "leading whitespace before <think> dropped",
			steps: []step{
				{chunk: "\n "},
				{chunk: "<think>a</think>b", want: []Segment{th("a"), an("b")}},
			},
		},
		{
			name: "leading whitespace kept before an answer",
			steps: []step{
				{chunk: "\n "},
				{chunk: "Hi", want: []Segment{an("\n Hi")}},
			},
		},
		{
			name: "partial open tag flushed as text",
			steps: []step{
				{chunk: "<thin"},
				{flush: true, want: []Segment{an("<thin")}},
			},
		},
		{
			name: "something that only looks like a tag",
			steps: []step{
				{chunk: "<th"},
				{chunk: "e end>", want: []Segment{an("<the end>")}},
			},
		},
		{
			name: "partial close tag flushed as thinking",
			steps: []step{
				{chunk: "<think>abc</thi", want: []Segment{th("abc")}},
				{flush: true, want: []Segment{th("</thi")}},
			},
		},
		{
			name: "stream ends inside thinking",
			steps: []step{
				{chunk: "<think>\nstill going\n", want: []Segment{th("still going")}},
				{flush: true, want: []Segment{th("\n")}},
			},
		},
		{
			name: "newlines inside thinking kept",
			steps: []step{
				{chunk: "<think>a\n\n", want: []Segment{th("a")}},
				{chunk: "b\n", want: []Segment{th("\n\nb")}},
				{chunk: "</think>c", want: []Segment{an("c")}},
			},
		},
		{
			name: "empty think block (thinking disabled but model emitted one)",
			steps: []step{
				{chunk: "<think>\n\n</think>\n\n", want: nil},
				{chunk: "Answer", want: []Segment{an("Answer")}},
			},
		},
		{
			name: "answer spaces after </think> kept, newlines dropped",
			steps: []step{
				{chunk: "<think>x</think>\n\n  indented", want: []Segment{th("x"), an("  indented")}},
			},
		},
		{
			name:             "prompt ended inside <think>",
			startsInThinking: true,
			steps: []step{
				{chunk: "\nreasoning", want: []Segment{th("reasoning")}},
				{chunk: "</think>\n\nanswer", want: []Segment{an("answer")}},
				{flush: true},
			},
		},
		{
			name:             "starts in thinking: a second <think> is text",
			startsInThinking: true,
			steps: []step{
				{chunk: "<think>a</think>b", want: []Segment{th("<think>a"), an("b")}},
			},
		},
		{
			name: "second think block after answer is text",
			steps: []step{
				{chunk: "<think>a</think>b", want: []Segment{th("a"), an("b")}},
				{chunk: "<think>c</think>", want: []Segment{an("<think>c</think>")}},
			},
		},
		{
			name: "unicode split inside tags and text",
			steps: []step{
				{chunk: "<think>日本", want: []Segment{th("日本")}},
				{chunk: "語</", want: []Segment{th("語")}},
				{chunk: "think>🧪", want: []Segment{an("🧪")}},
			},
		},
		{
			name: "empty chunks",
			steps: []step{
				{chunk: ""},
				{chunk: "<think>"},
				{chunk: ""},
				{chunk: "</think>"},
				{chunk: ""},
				{flush: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewParser(tt.startsInThinking)
			for i, s := range tt.steps {
				var got []Segment
				if s.flush {
					got = p.Flush()
				} else {
					got = p.Add(s.chunk)
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Fatalf("step %d (Add(%q), flush=%v) (-want +got):\n%s", i, s.chunk, s.flush, diff)
				}
			}
		})
	}
}

// parseChunks feeds chunks and returns all segments, merged across calls.
func parseChunks(startsInThinking bool, chunks []string) []Segment {
	p := NewParser(startsInThinking)
	var all []Segment
	for _, c := range chunks {
		all = append(all, p.Add(c)...)
	}
	return merge(append(all, p.Flush()...))
}

// merge joins adjacent segments of the same kind; it panics on an empty one.
func merge(segs []Segment) []Segment {
	var out []Segment
	var b strings.Builder
	for i, s := range segs {
		if s.Text == "" {
			panic("empty segment")
		}
		b.WriteString(s.Text)
		if i == len(segs)-1 || segs[i+1].Thinking != s.Thinking {
			out = append(out, Segment{Thinking: s.Thinking, Text: b.String()})
			b.Reset()
		}
	}
	return out
}

// wholeCases are full replies with their expected segments; every chunking must agree.
var wholeCases = []struct {
	in               string
	startsInThinking bool
	want             []Segment
}{
	{in: "<think>\nLet me think.\n</think>\n\nThe answer.", want: []Segment{th("Let me think."), an("The answer.")}},
	{in: "<think></think>answer", want: []Segment{an("answer")}},
	{in: "<think>\n\n</think>\n\n", want: nil},
	{in: " \n<think>a\n\nb\n</think>\n\n\n  c\n", want: []Segment{th("a\n\nb"), an("  c\n")}},
	{in: "plain <think>not a tag</think> answer", want: []Segment{an("plain <think>not a tag</think> answer")}},
	{in: "<think>x <think> y </thin </think>z</think>", want: []Segment{th("x <think> y </thin "), an("z</think>")}},
	{in: "<think>open forever\n", want: []Segment{th("open forever\n")}},
	{in: "<thin", want: []Segment{an("<thin")}},
	{in: "<<think>>", want: []Segment{an("<<think>>")}},
	{in: "reason\n</think>\n\nanswer", startsInThinking: true, want: []Segment{th("reason"), an("answer")}},
	{in: "\n\n</think>", startsInThinking: true, want: nil},
	{in: "<think>日本語</think>\n🧪 done", want: []Segment{th("日本語"), an("🧪 done")}},
}

// TestEverySplitPoint cuts each reply in two at every byte, and in three at every pair.
func TestEverySplitPoint(t *testing.T) {
	for _, c := range wholeCases {
		if diff := cmp.Diff(c.want, parseChunks(c.startsInThinking, []string{c.in})); diff != "" {
			t.Fatalf("%q in one chunk (-want +got):\n%s", c.in, diff)
		}
		for i := 0; i <= len(c.in); i++ {
			for j := i; j <= len(c.in); j++ {
				chunks := []string{c.in[:i], c.in[i:j], c.in[j:]}
				if diff := cmp.Diff(c.want, parseChunks(c.startsInThinking, chunks)); diff != "" {
					t.Fatalf("%q chunked %q (-want +got):\n%s", c.in, chunks, diff)
				}
			}
		}
		bytes := strings.Split(c.in, "")
		if diff := cmp.Diff(c.want, parseChunks(c.startsInThinking, bytes)); diff != "" {
			t.Fatalf("%q rune by rune (-want +got):\n%s", c.in, diff)
		}
	}
}

func TestRandomChunkings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range wholeCases {
		for range 200 {
			chunks := randomChunks(r, c.in)
			if diff := cmp.Diff(c.want, parseChunks(c.startsInThinking, chunks)); diff != "" {
				t.Fatalf("%q chunked %q (-want +got):\n%s", c.in, chunks, diff)
			}
		}
	}
}

func randomChunks(r *rand.Rand, s string) []string {
	var chunks []string
	for len(s) > 0 {
		n := min(len(s), r.IntN(6))
		chunks = append(chunks, s[:n])
		s = s[n:]
	}
	return chunks
}

// FuzzParser checks, for any reply and any chunking, that the chunked result equals the
// one-chunk result, and that nothing but the tags and whitespace is removed: putting the tags
// back between the segments gives the input again, up to whitespace.
func FuzzParser(f *testing.F) {
	for _, c := range wholeCases {
		f.Add(c.in, c.startsInThinking, uint64(7))
	}
	f.Fuzz(func(t *testing.T, in string, startsInThinking bool, seed uint64) {
		whole := parseChunks(startsInThinking, []string{in})
		chunks := randomChunks(rand.New(rand.NewPCG(seed, 0)), in)
		if diff := cmp.Diff(whole, parseChunks(startsInThinking, chunks)); diff != "" {
			t.Fatalf("%q chunked %q differs from one chunk (-whole +chunked):\n%s", in, chunks, diff)
		}
		var rebuilt strings.Builder
		thinking, closed := startsInThinking, false
		if strings.HasPrefix(strings.TrimLeft(in, " \t\r\n"), OpenTag) && !startsInThinking {
			rebuilt.WriteString(OpenTag)
			thinking = true
		}
		for _, s := range whole {
			if thinking && !s.Thinking && !closed {
				rebuilt.WriteString(CloseTag)
				closed = true
			}
			rebuilt.WriteString(s.Text)
		}
		if thinking && !closed && strings.Contains(in, CloseTag) {
			rebuilt.WriteString(CloseTag) // the block closed with nothing after it
		}
		if got, want := dropSpace(rebuilt.String()), dropSpace(in); got != want {
			t.Fatalf("input %q: segments %+v rebuild to %q", in, whole, rebuilt.String())
		}
	})
}

func dropSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// TestLongRunsStayLinear feeds long runs of held-back whitespace one byte at a time; a parser
// that rescanned what it holds would take quadratic time here.
func TestLongRunsStayLinear(t *testing.T) {
	const n = 200_000
	tests := []struct {
		name             string
		in               string
		startsInThinking bool
		want             []Segment
	}{
		{"newlines in thinking", "<think>a" + strings.Repeat("\n", n) + "b</think>c", false, []Segment{th("a" + strings.Repeat("\n", n) + "b"), an("c")}},
		{"newlines before </think>", "a" + strings.Repeat("\n", n) + "</think>c", true, []Segment{th("a"), an("c")}},
		{"whitespace before the reply", strings.Repeat(" ", n) + "<think>a</think>", false, []Segment{th("a")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseChunks(tt.startsInThinking, strings.Split(tt.in, ""))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
