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
		t.Run(tc.name, func(t *testing.T) { checkDetailsLine(t, tc.sum, "Prompt lookup", tc.want) })
	}
}

// A local reply's details say which power mode served it.
func TestDetailsShowPower(t *testing.T) {
	saver := &reply.Power{Mode: "saver", Why: "on battery (40%)", Threads: 4, HTPMode: "balanced"}
	checkDetailsLine(t, reply.Summary{Power: saver}, "Power",
		"Power: battery saver (on battery (40%)): 4 CPU threads, no spin-waiting, QNN balanced")
	checkDetailsLine(t, reply.Summary{Backend: "remote"}, "Power", "")
}

// checkDetailsLine shows sum's details and checks the line starting with prefix ("" for none).
func checkDetailsLine(t *testing.T, sum reply.Summary, prefix, want string) {
	t.Helper()
	m := newMessageVM(history.Message{Role: "assistant"})
	m.showStats(statsFrom(&sum))
	d, _ := m.Details.Get()
	line := ""
	for _, l := range strings.Split(d, "\n") {
		if strings.HasPrefix(l, prefix) {
			line = l
		}
	}
	if line != want {
		t.Errorf("details line %q, want %q (all: %q)", line, want, d)
	}
}

func TestEndWords(t *testing.T) {
	tests := []struct {
		s    history.Stats
		want string
	}{
		{history.Stats{FinishReason: reply.FinishStop, StopCause: reply.StopEndOfText}, "the model finished its reply"},
		{history.Stats{FinishReason: reply.FinishStop, StopCause: reply.StopString}, "at a stop string"},
		{history.Stats{FinishReason: reply.FinishLength, StopCause: reply.StopMaxTokens}, "Max tokens reached"},
		{history.Stats{FinishReason: reply.FinishLength, StopCause: reply.StopContext, ContextTokens: 512}, "the model's 512-token context was full"},
		{history.Stats{FinishReason: reply.FinishLength}, "a length limit (Max tokens or the model's context)"},
		{history.Stats{FinishReason: reply.FinishCancelled}, "stopped"},
		{history.Stats{}, ""},
	}
	for _, tt := range tests {
		if got := endWords(&tt.s); got != tt.want {
			t.Errorf("endWords(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
