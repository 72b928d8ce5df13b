package reply

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSummaryJSONRoundTrip(t *testing.T) {
	in := Summary{FinishReason: FinishError, Err: errors.New("boom"), TTFT: 12500 * time.Microsecond, PromptTokens: 3, IDs: []int{1, 2}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	if fields["error"] != "boom" || fields["ttft_ms"] != 12.5 {
		t.Errorf("wire form %s: want error \"boom\" and ttft_ms 12.5", b)
	}
	var out Summary
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.ErrorText() != "boom" || out.TTFT != in.TTFT || out.PromptTokens != 3 || !cmp.Equal(out.IDs, in.IDs) {
		t.Errorf("round trip: got %+v from %s", out, b)
	}
}

func TestEnded(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	ok := &Summary{FinishReason: FinishStop}
	tests := []struct {
		name       string
		ctx        context.Context
		sum        *Summary
		wantFinish string
		wantErr    error
	}{
		{"summary kept", live, ok, FinishStop, nil},
		{"missing, cancelled", cancelled, nil, FinishCancelled, nil},
		{"missing, not cancelled", live, nil, FinishError, ErrNoSummary},
		{"failure without error", live, &Summary{FinishReason: FinishError}, FinishError, errUnexplained},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Ended(tt.ctx, tt.sum)
			if got.FinishReason != tt.wantFinish || !errors.Is(got.Err, tt.wantErr) {
				t.Errorf("Ended = %q %v, want %q %v", got.FinishReason, got.Err, tt.wantFinish, tt.wantErr)
			}
		})
	}
}

func TestCollect(t *testing.T) {
	ch := make(chan Event, 8)
	for _, ev := range []Event{{Kind: EventStatus, Text: "Loading"}, {Kind: EventThinking, Text: "hm"}, {Kind: EventText, Text: "Hel"},
		{Kind: EventNotice, Text: "trimmed"}, {Kind: EventText, Text: "lo"}, {Kind: EventDone, Done: &Summary{FinishReason: FinishStop}}} {
		ch <- ev
	}
	close(ch)
	got := Collect(context.Background(), ch)
	want := Collected{Text: "Hello", Thinking: "hm", Notices: []string{"trimmed"}, Summary: &Summary{FinishReason: FinishStop}}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("Collect (-want +got):\n%s", diff)
	}
}

func TestContextLength(t *testing.T) {
	explain := errors.New("the prompt takes 900 tokens but the context holds 512")
	err := ContextLength(explain)
	if !errors.Is(err, ErrContextLength) || !errors.Is(err, explain) {
		t.Errorf("errors.Is: want both ErrContextLength and the explanation in %v", err)
	}
	if err.Error() != explain.Error() {
		t.Errorf("message %q, want the explanation alone %q", err, explain)
	}
}

func TestPowerLabel(t *testing.T) {
	for _, tc := range []struct {
		p    *Power
		want string
	}{
		{nil, ""},
		{&Power{Mode: "performance", Why: "on AC power", Threads: 8}, "full speed (on AC power): 8 CPU threads"},
		{&Power{Mode: "saver", Why: "on battery (40%)", Threads: 4, HTPMode: "balanced"}, "battery saver (on battery (40%)): 4 CPU threads, no spin-waiting, QNN balanced"},
		{&Power{Mode: "saver", Why: "pinned in the settings", Threads: 1}, "battery saver (pinned in the settings): 1 CPU thread, no spin-waiting"},
	} {
		if got := tc.p.Label(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}
