package server

import (
	"runtime"
	"strings"
	"testing"
)

// allocated is the number of bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDecodeCostLinear checks that decoding a request costs in proportion to its size: the
// memory it allocates (a steady measure, unlike time, of copies made again and again) for 8×
// the messages, or 8× the content parts of one message, is about 8× as much, where a
// quadratic cost would give 64× (up to 10×: slices grow by doubling while small, then by a
// quarter, so the larger request wastes a larger share).
func TestDecodeCostLinear(t *testing.T) {
	messages := func(n int) []byte {
		var b strings.Builder
		b.WriteString(`{"messages":[`)
		for i := range n {
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			b.WriteString(`{"role":"` + role + `","content":"x"},`)
		}
		b.WriteString(`{"role":"user","content":"go"}],"logit_bias":{"1":-100}}`)
		return []byte(b.String())
	}
	parts := func(n int) []byte {
		return []byte(`{"messages":[{"role":"user","content":[` + strings.Repeat(`{"type":"text","text":"x"},`, n) + `{"type":"text","text":"y"}]}]}`)
	}
	for name, body := range map[string]func(int) []byte{"messages": messages, "content parts": parts} {
		cost := func(n int) uint64 {
			b := body(n)
			return allocated(func() {
				if _, _, err := decodeChatRequest(b); err != nil {
					t.Fatal(err)
				}
			})
		}
		small, large := cost(4000), cost(32000)
		ratio := float64(large) / float64(small)
		t.Logf("%s: %d bytes allocated for 4,000, %d for 32,000 (×%.2f)", name, small, large, ratio)
		if ratio > 16 { // n^1.5 would be 22.6×
			t.Errorf("%s: decoding 8× as many costs %.1f× the memory", name, ratio)
		}
	}
}
