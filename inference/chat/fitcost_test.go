package chat

import "testing"

// TestFitStartCostLinear checks that fitting a long conversation into a fixed context renders
// a number of messages proportional to the conversation, not to its square: 10× the messages
// may cost about 10× the rendering (the whole conversation once, then halves of it), whatever
// the count of turns the context keeps.
func TestFitStartCostLinear(t *testing.T) {
	rendered := func(n, limit int) int {
		roles := make([]string, n)
		for i := range roles {
			roles[i] = "user"
			if i%2 == 1 {
				roles[i] = "assistant"
			}
		}
		roles[0], roles[n-1] = "system", "user"
		total := 0
		count := func(start int) (int, error) {
			kept := 1 + n - start // the system message and the tail from start
			total += kept
			return 3 * kept, nil // three tokens a message
		}
		if _, err := FitStart(roles, limit, 0, count); err != nil {
			t.Fatal(err)
		}
		return total
	}
	for _, limit := range []int{30, 3000, 30000} { // keeps 10, 1,000 and 10,000 messages
		small, large := rendered(20_001, limit), rendered(200_001, limit)
		ratio := float64(large) / float64(small)
		t.Logf("context of %d tokens: %d and %d messages rendered (×%.2f)", limit, small, large, ratio)
		if ratio > 11 {
			t.Errorf("context of %d tokens: fitting 200,001 messages renders %d of them, %.1f× what 20,001 do (%d)", limit, large, ratio, small)
		}
	}
}
