package tokenizer

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWhiteSpaceRuns checks the scanner's white-space skipping, which remembers recent runs,
// against skipping byte by byte: on pretty-printed JSON whose runs repeat, and on random mixes
// of white space, control characters and other bytes where a remembered run is often a prefix
// of a longer one or is followed by a byte that is not JSON white space.
func TestWhiteSpaceRuns(t *testing.T) {
	texts := []string{
		"[\n  [\n    \"a\",\n    \"b\"\n  ],\n  [\n    \"c\",\n    \"d\"\n  ]\n]",
		"{\n\t\"x\": 1,\n\t\"y\": 2\n}\n",
		strings.Repeat("\n        \"ab\",", 20) + "\n          \x01\n        \"c\"",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(" \n\t\r\x01\x0ba\"")
	for range 300 {
		var b strings.Builder
		runs := []string{"\n    ", "\n  ", "\n          ", "\n                "}
		for range 200 {
			switch rng.IntN(4) {
			case 0, 1: // a run seen before, perhaps longer
				b.WriteString(runs[rng.IntN(len(runs))])
				if rng.IntN(4) == 0 {
					b.WriteByte(alphabet[rng.IntN(len(alphabet))])
				}
			case 2:
				b.WriteByte(alphabet[rng.IntN(len(alphabet))])
			default:
				b.WriteString("x")
			}
		}
		texts = append(texts, b.String())
	}
	isWS := func(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
	for _, text := range texts {
		s := &scanner{data: []byte(text)}
		want := 0
		for s.pos < len(s.data) {
			for want < len(text) && isWS(text[want]) {
				want++
			}
			from := s.pos
			s.ws()
			if s.pos != want {
				t.Fatalf("ws of %q from %d stopped at %d, want %d", text, from, s.pos, want)
			}
			if s.pos < len(s.data) {
				s.pos++ // the next token's byte
				want++
			}
		}
	}
}

// TestMergesLayouts reads merges arrays whose layout changes from merge to merge (pretty-printed,
// compact, escaped tokens, "#version" lines, both forms, a layout that repeats only in part)
// and checks them against encoding/json's reading.
func TestMergesLayouts(t *testing.T) {
	pretty := func(a, b string) string { return "\n      [\n        \"" + a + "\",\n        \"" + b + "\"\n      ]" }
	legacy := func(a, b string) string { return "\n    \"" + a + " " + b + "\"" }
	var arr, leg []string
	for i := range 40 {
		a, b := strings.Repeat("x", i%5), strings.Repeat("▁y", i%3+1)
		switch i % 9 {
		case 3:
			arr = append(arr, `["`+a+`","`+b+`"]`) // compact
			leg = append(leg, `"`+a+` `+b+`"`)
		case 5:
			arr = append(arr, pretty(a+`\"q`, b)) // escaped
			leg = append(leg, legacy(a+`\u00e9`, b))
		case 7:
			arr = append(arr, "\n      [\n        \""+a+"\",  \""+b+"\"\n      ]") // mid differs
			leg = append(leg, legacy("#version: 0.2", ""))
		default:
			arr = append(arr, pretty(a, b))
			leg = append(leg, legacy(a, b))
		}
	}
	for _, text := range []string{"[" + strings.Join(arr, ",") + "\n    ]", "[" + strings.Join(leg, ",") + "\n    ]", "[]", "[\n]"} {
		var want [][2]string
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(text), &raw); err != nil {
			t.Fatal(err)
		}
		for _, r := range raw {
			var p [2]string
			var line string
			if json.Unmarshal(r, &p) != nil {
				if err := json.Unmarshal(r, &line); err != nil {
					t.Fatal(err)
				}
				if strings.HasPrefix(line, "#version") {
					continue
				}
				a, b, _ := strings.Cut(line, " ")
				p = [2]string{a, b}
			}
			want = append(want, p)
		}
		s := &scanner{data: []byte(text + " ")}
		var l mergeList
		if err := s.merges(&l); err != nil {
			t.Fatalf("merges of %q: %v", text, err)
		}
		if l.count() != len(want) {
			t.Fatalf("%d merges read from %q, want %d", l.count(), text, len(want))
		}
		for i, w := range want {
			if a, b := l.pair(i); string(a) != w[0] || string(b) != w[1] {
				t.Errorf("merge %d of %q: %q %q, want %q %q", i, text, a, b, w[0], w[1])
			}
		}
	}
}
