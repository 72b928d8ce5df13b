package chat

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wordCount is a stand-in tokenizer: one token per message plus one per word.
func wordCount(calls *int) func([]Message) (int, error) {
	return func(msgs []Message) (int, error) {
		*calls++
		n := 0
		for _, m := range msgs {
			n += 1 + len(strings.Fields(m.Content))
		}
		return n, nil
	}
}

func sys(s string) Message       { return Message{Role: "system", Content: s} }
func user(s string) Message      { return Message{Role: "user", Content: s} }
func assistant(s string) Message { return Message{Role: "assistant", Content: s} }

func TestFit(t *testing.T) {
	// Each message below costs 3 tokens (1 + two words).
	conv := []Message{
		sys("be brief"),
		user("q one"), assistant("a one"),
		user("q two"), assistant("a two"),
		user("q three"), assistant("a three"),
		user("q four"),
	}
	tests := []struct {
		name           string
		msgs           []Message
		limit, reserve int
		want           []Message
		wantDropped    int
		wantErr        error
	}{
		{name: "fits", msgs: conv, limit: 24, reserve: 0, want: conv},
		{name: "fits exactly with reserve", msgs: conv, limit: 30, reserve: 6, want: conv},
		{name: "drop one turn", msgs: conv, limit: 23, want: append([]Message{conv[0]}, conv[3:]...), wantDropped: 2},
		{name: "drop two turns", msgs: conv, limit: 20, reserve: 3, want: append([]Message{conv[0]}, conv[5:]...), wantDropped: 4},
		{name: "only system and last user", msgs: conv, limit: 6, want: []Message{conv[0], conv[7]}, wantDropped: 6},
		{name: "too long", msgs: conv, limit: 5, want: []Message{conv[0], conv[7]}, wantDropped: 6, wantErr: ErrTooLong},
		{name: "reserve exceeds limit", msgs: conv, limit: 10, reserve: 10, want: []Message{conv[0], conv[7]}, wantDropped: 6, wantErr: ErrTooLong},
		{
			name: "no system message", msgs: conv[1:], limit: 9,
			want: conv[5:], wantDropped: 4,
		},
		{
			name:  "tail after last user kept (continue a reply)",
			msgs:  []Message{user("q one"), assistant("a one"), user("q two"), assistant("partial answer")},
			limit: 6, want: []Message{user("q two"), assistant("partial answer")}, wantDropped: 2,
		},
		{
			name:  "greeting before first user is its own turn",
			msgs:  []Message{sys("be brief"), assistant("hello there"), user("q one"), assistant("a one"), user("q two")},
			limit: 12, want: []Message{sys("be brief"), user("q one"), assistant("a one"), user("q two")}, wantDropped: 1,
		},
		{
			name:  "tool messages go with their turn",
			msgs:  []Message{user("q one"), assistant("a one"), {Role: "tool", Content: "r one"}, assistant("a again"), user("q two")},
			limit: 4, want: []Message{user("q two")}, wantDropped: 4,
		},
		{
			name:  "later system message goes with its turn",
			msgs:  []Message{sys("be brief"), user("q one"), sys("new rule"), user("q two")},
			limit: 6, want: []Message{sys("be brief"), user("q two")}, wantDropped: 2,
		},
		{name: "no user message", msgs: []Message{sys("be brief"), assistant("hi there")}, limit: 100, want: []Message{sys("be brief"), assistant("hi there")}},
		{name: "no user message too long", msgs: []Message{sys("be brief"), assistant("hi there")}, limit: 3, want: []Message{sys("be brief"), assistant("hi there")}, wantErr: ErrTooLong},
		{name: "empty", msgs: nil, limit: 1, want: []Message{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			got, dropped, err := Fit(tt.msgs, tt.limit, tt.reserve, wordCount(&calls))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Fit error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Fit kept (-want +got):\n%s", diff)
			}
			if dropped != tt.wantDropped {
				t.Errorf("Fit dropped %d, want %d", dropped, tt.wantDropped)
			}
			if calls > 2+bitLen(len(tt.msgs)) {
				t.Errorf("countTokens called %d times for %d messages", calls, len(tt.msgs))
			}
		})
	}
}

func bitLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

func TestFitKeepsInputIntact(t *testing.T) {
	msgs := []Message{sys("s"), user("a"), assistant("b"), user("c")}
	orig := append([]Message(nil), msgs...)
	calls := 0
	if _, _, err := Fit(msgs, 5, 0, wordCount(&calls)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(orig, msgs); diff != "" {
		t.Errorf("Fit changed its input (-want +got):\n%s", diff)
	}
}

func TestFitCountError(t *testing.T) {
	boom := errors.New("tokenizer broke")
	_, _, err := Fit([]Message{user("a")}, 10, 0, func([]Message) (int, error) { return 0, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Fit error = %v, want it to wrap %v", err, boom)
	}
}

func TestFitTooLongMessage(t *testing.T) {
	calls := 0
	_, _, err := Fit([]Message{sys("a b c"), user("d e f g")}, 8, 2, wordCount(&calls))
	want := "the message is too long for the model's context: the system prompt and your last message take 9 tokens, 2 reserved for the reply, but the context holds 8 — shorten the message by about 3 tokens, or the system prompt"
	if err == nil || err.Error() != want {
		t.Errorf("Fit error =\n%v\nwant\n%s", err, want)
	}
}

// TestFitWithTemplate runs Fit on real Qwen3 renders, counting bytes as tokens.
func TestFitWithTemplate(t *testing.T) {
	tpl, _ := loadTemplate(t, "qwen3")
	count := func(msgs []Message) (int, error) {
		s, err := tpl.Render(msgs, Options{AddGenerationPrompt: true})
		return len(s), err
	}
	msgs := []Message{sys("Be brief."), user("One?"), assistant("<think>\nhm\n</think>\n\n1"), user("Two?"), assistant("2"), user("Three?")}
	full, _ := count(msgs)
	got, dropped, err := Fit(msgs, full-1, 0, count)
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{sys("Be brief."), user("Two?"), assistant("2"), user("Three?")}
	if diff := cmp.Diff(want, got); diff != "" || dropped != 2 {
		t.Errorf("Fit dropped %d (want 2), kept (-want +got):\n%s", dropped, diff)
	}
}
