package ui

import (
	"strings"
	"testing"

	"edgechat/history"
	"edgechat/reply"
)

// A reply's details say how prompt lookup fared; replies without it say nothing of it.
func TestDetailsShowLookup(t *testing.T) {
	for _, tc := range []struct {
		name string
		sum  reply.Summary
		want string
	}{
		{"lookup ran", reply.Summary{GeneratedTokens: 95, Lookup: &reply.LookupStats{Drafted: 103, Accepted: 73, Runs: 22}},
			"Prompt lookup: 73 of 103 drafted tokens kept (71%), 22 decoder runs for 95 tokens"},
		{"nothing drafted", reply.Summary{GeneratedTokens: 5, Lookup: &reply.LookupStats{Runs: 4}}, ""},
		{"lookup off", reply.Summary{GeneratedTokens: 5}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMessageVM(history.Message{Role: "assistant"})
			st := statsFrom(&tc.sum)
			m.showStats(st)
			d, _ := m.Details.Get()
			line := ""
			for _, l := range strings.Split(d, "\n") {
				if strings.HasPrefix(l, "Prompt lookup") {
					line = l
				}
			}
			if line != tc.want {
				t.Errorf("details line %q, want %q (all: %q)", line, tc.want, d)
			}
		})
	}
}
