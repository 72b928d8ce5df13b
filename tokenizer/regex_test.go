package tokenizer

import "testing"

// TestRegexEngineMatchesHandWritten runs the generic regex engine on the regexes that have
// hand-written matchers (checked against the reference by the goldens) and compares the matches
// on the golden corpus: look-ahead, case-insensitive groups, classes and repetition agree.
func TestRegexEngineMatchesHandWritten(t *testing.T) {
	var corpus []string
	readGz(t, "corpus.json.gz", &corpus)
	initClasses()
	patterns := map[string]matcher{
		`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`: matchGPT2, // ByteLevel's
	}
	for src, hand := range splitPatterns {
		patterns[src] = hand
	}
	for src, hand := range patterns {
		p := &reParser{src: src}
		n, err := p.alternation()
		if err != nil || p.pos != len(src) {
			t.Fatalf("%q: %v", src, err)
		}
		generic := &pattern{src: src, match: func(s string, i int) int {
			end := -1
			n(s, i, func(j int) bool { end = j; return true })
			return end
		}}
		handP := &pattern{src: src, match: hand, nonEmpty: true}
		for _, s := range corpus {
			var a, b [][2]int
			handP.findAll(s, func(x, y int) { a = append(a, [2]int{x, y}) })
			generic.findAll(s, func(x, y int) { b = append(b, [2]int{x, y}) })
			if len(a) != len(b) {
				t.Errorf("%q on %q: hand %v, engine %v", src[:20], s, a, b)
				break
			}
			for i := range a {
				if a[i] != b[i] {
					t.Errorf("%q on %q: hand %v, engine %v", src[:20], s, a[i], b[i])
					break
				}
			}
		}
	}
}
