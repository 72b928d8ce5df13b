package ui

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"edgechat/reply"

	"fyne.io/fyne/v2/data/binding"
	"github.com/google/go-cmp/cmp"
)

func TestChatVMReplies(t *testing.T) {
	tests := []struct {
		name        string
		gen         func(context.Context, reply.Request, chan<- reply.Event)
		wantAnswer  string
		wantThink   string
		wantBackend string
		wantFooter  string // substring
		wantNotes   []string
		wantError   string // substring
	}{
		{
			name: "send and stream",
			gen: script(reply.Summary{FinishReason: "stop", Backend: "npu", GeneratedTokens: 3, DecodeTPS: 21.5, TTFT: 140 * time.Millisecond},
				reply.Event{Kind: reply.EventStatus, Text: "Loading model…"}, text("Hel"), text("lo "), text("there")),
			wantAnswer: "Hello there", wantBackend: "NPU", wantFooter: "21.5 tok/s · first token 140 ms · 3 tokens",
		},
		{
			name:       "footer names the model",
			gen:        script(reply.Summary{FinishReason: "stop", Backend: "cpu", Model: "onnx-community/Qwen3-0.6B-ONNX", GeneratedTokens: 2, DecodeTPS: 30}, text("ok")),
			wantAnswer: "ok", wantBackend: "CPU", wantFooter: "onnx-community/Qwen3-0.6B-ONNX · 30.0 tok/s · 2 tokens",
		},
		{
			name:       "thinking then answer",
			gen:        script(reply.Summary{FinishReason: "stop", Backend: "cpu"}, thinking("Let me "), thinking("think."), text("42")),
			wantAnswer: "42", wantThink: "Let me think.", wantBackend: "CPU",
		},
		{
			name: "fallback badge",
			gen: script(reply.Summary{FinishReason: "stop", Backend: "cpu", FallbackReason: "QNN execution provider not available"},
				text("ok")),
			wantAnswer: "ok", wantBackend: "CPU",
			wantNotes: []string{"Served by CPU instead of the NPU: QNN execution provider not available"},
		},
		{
			name: "context trim notice",
			gen: script(reply.Summary{FinishReason: "stop", Backend: "npu", TrimmedMessages: 2},
				reply.Event{Kind: reply.EventNotice, Text: "Context trimmed: 2 oldest messages dropped"}, text("ok")),
			wantAnswer: "ok", wantBackend: "NPU",
			wantNotes: []string{"Context trimmed: 2 oldest messages dropped"},
		},
		{
			name:       "trim known only from the summary",
			gen:        script(reply.Summary{FinishReason: "stop", Backend: "npu", TrimmedMessages: 1}, text("ok")),
			wantAnswer: "ok", wantBackend: "NPU",
			wantNotes: []string{"Context trimmed: 1 oldest message dropped to fit the model's window"},
		},
		{
			name: "error event",
			gen: script(reply.Summary{FinishReason: "error", Err: errors.New("model.onnx not found in C:\\models")},
				text("par")),
			wantAnswer: "par", wantError: "model.onnx not found in C:\\models — open Settings",
		},
		{
			name:       "max tokens",
			gen:        script(reply.Summary{FinishReason: "length", StopCause: reply.StopMaxTokens, Backend: "cpu"}, text("cut")),
			wantAnswer: "cut", wantBackend: "CPU",
			wantNotes: []string{"Stopped at Max tokens — raise Max tokens in Settings for longer replies"},
		},
		{
			name:       "context full",
			gen:        script(reply.Summary{FinishReason: "length", StopCause: reply.StopContext, ContextTokens: 512, Backend: "cpu"}, text("cut")),
			wantAnswer: "cut", wantBackend: "CPU",
			wantNotes: []string{"Stopped: the conversation filled the model's 512-token context — start a new chat to go on, or use a model with a longer context"},
		},
		{
			name:       "length limit of unknown cause",
			gen:        script(reply.Summary{FinishReason: "length", Backend: "remote"}, text("cut")),
			wantAnswer: "cut", wantBackend: "Remote",
			wantNotes: []string{"Stopped at a length limit — Max tokens in Settings, or the model's context"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vm, eng, st := newTestChat(t, tt.gen)
			_ = vm.Draft.Set("What is the answer?")
			if err := vm.SendDraft(); err != nil {
				t.Fatal(err)
			}
			waitIdle(t, vm)
			msgs := messages(vm)
			if len(msgs) != 2 {
				t.Fatalf("got %d messages, want 2", len(msgs))
			}
			a := msgs[1]
			if got := a.Text(); got != tt.wantAnswer {
				t.Errorf("answer = %q, want %q", got, tt.wantAnswer)
			}
			if got := a.Thinking.Text(); got != tt.wantThink {
				t.Errorf("thinking = %q, want %q", got, tt.wantThink)
			}
			if get[bool](a.ThinkingOpen) {
				t.Error("thinking section still open after the answer")
			}
			if got := get[string](a.Backend); got != tt.wantBackend {
				t.Errorf("backend badge = %q, want %q", got, tt.wantBackend)
			}
			if got := get[string](a.Footer); !strings.Contains(got, tt.wantFooter) {
				t.Errorf("footer = %q, want it to contain %q", got, tt.wantFooter)
			}
			var notes []string
			if n := get[string](a.Notes); n != "" {
				notes = strings.Split(n, "\n")
			}
			if diff := cmp.Diff(tt.wantNotes, notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			if got := get[string](a.Error); !strings.Contains(got, tt.wantError) || (tt.wantError == "") != (got == "") {
				t.Errorf("error = %q, want it to contain %q", got, tt.wantError)
			}
			if get[bool](vm.Generating) || get[bool](a.Streaming) || get[string](a.Status) != "" {
				t.Error("still generating after Done")
			}
			if get[string](vm.Draft) != "" {
				t.Error("draft not cleared after send")
			}
			req := eng.last()
			wantReq := []reply.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "What is the answer?"}}
			if diff := cmp.Diff(wantReq, req.Messages); diff != "" {
				t.Errorf("request messages (-want +got):\n%s", diff)
			}
			if req.ConversationID == "" || req.ConversationID != get[string](vm.CurrentID) {
				t.Errorf("request ConversationID = %q, want the open conversation %q", req.ConversationID, get[string](vm.CurrentID))
			}
			saved, err := st.Load(req.ConversationID)
			if err != nil {
				t.Fatal(err)
			}
			if len(saved.Messages) != 2 || saved.Messages[1].Content != tt.wantAnswer || saved.Messages[1].Stats == nil {
				t.Errorf("saved conversation = %+v, want the reply with its stats", saved.Messages)
			}
			if saved.Title != "What is the answer?" {
				t.Errorf("title = %q, want the first message", saved.Title)
			}
		})
	}
}

// blockingGen sends "partial" and waits for cancellation, like a slow model.
func blockingGen(started chan<- struct{}) func(context.Context, reply.Request, chan<- reply.Event) {
	return func(ctx context.Context, _ reply.Request, out chan<- reply.Event) {
		out <- text("partial")
		close(started)
		<-ctx.Done()
		out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishCancelled, Backend: "npu"}}
	}
}

func TestChatVMStop(t *testing.T) {
	started := make(chan struct{})
	vm, _, st := newTestChat(t, blockingGen(started))
	if err := vm.Send("long story please"); err != nil {
		t.Fatal(err)
	}
	<-started
	if !get[bool](vm.Generating) {
		t.Fatal("Generating is false while streaming")
	}
	if err := vm.Send("another"); !errors.Is(err, ErrBusy) {
		t.Errorf("Send while streaming = %v, want ErrBusy", err)
	}
	vm.Stop()
	waitIdle(t, vm)
	a := messages(vm)[1]
	if got := a.Text(); got != "partial" {
		t.Errorf("answer after Stop = %q, want the partial text kept", got)
	}
	if got := get[string](a.Notes); got != "Stopped" {
		t.Errorf("notes = %q, want Stopped", got)
	}
	c, _ := st.Load(get[string](vm.CurrentID))
	if c.Messages[1].Content != "partial" || c.Messages[1].Stats.FinishReason != reply.FinishCancelled {
		t.Errorf("saved reply = %+v, want the partial text, finish cancelled", c.Messages[1])
	}
}

func TestChatVMRegenerate(t *testing.T) {
	n := 0
	vm, eng, _ := newTestChat(t, nil)
	eng.gen = func(ctx context.Context, req reply.Request, out chan<- reply.Event) {
		n++
		script(reply.Summary{FinishReason: "stop"}, text(strings.Repeat("v", n)))(ctx, req, out)
	}
	_ = vm.Send("hi")
	waitIdle(t, vm)
	if err := vm.Regenerate(); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, vm)
	msgs := messages(vm)
	if len(msgs) != 2 || msgs[1].Text() != "vv" {
		t.Fatalf("after Regenerate: %d messages, last %q; want 2, \"vv\"", len(msgs), msgs[len(msgs)-1].Text())
	}
	if got := len(eng.last().Messages); got != 2 {
		t.Errorf("regenerate request has %d messages, want system + user (the old reply dropped)", got)
	}
	c := vm.Snapshot()
	if len(c.Messages) != 2 || c.Messages[1].Content != "vv" {
		t.Errorf("stored messages = %+v", c.Messages)
	}
}

func TestChatVMEditAndResend(t *testing.T) {
	vm, eng, _ := newTestChat(t, script(reply.Summary{FinishReason: "stop"}, text("answer")))
	_ = vm.Send("first question")
	waitIdle(t, vm)
	_ = vm.Send("second qestion")
	waitIdle(t, vm)
	if err := vm.EditLast(); err != nil {
		t.Fatal(err)
	}
	if got := get[string](vm.Draft); got != "second qestion" {
		t.Errorf("draft = %q, want the last user message", got)
	}
	if got := len(messages(vm)); got != 2 {
		t.Errorf("after EditLast %d messages, want 2", got)
	}
	_ = vm.Draft.Set("second question")
	if err := vm.SendDraft(); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, vm)
	req := eng.last().Messages
	if got := req[len(req)-1].Content; got != "second question" {
		t.Errorf("resent %q, want the edited text", got)
	}
	if len(req) != 4 {
		t.Errorf("resend request has %d messages, want system, user, assistant, user", len(req))
	}
}

func TestChatVMGenerateError(t *testing.T) {
	vm, eng, _ := newTestChat(t, nil)
	vm.deps.Engine = errEngine{eng}
	_ = vm.Send("hi")
	waitIdle(t, vm)
	a := messages(vm)[1]
	if got := get[string](a.Error); !strings.Contains(got, "No model configured") {
		t.Errorf("error = %q", got)
	}
	if get[bool](vm.Generating) {
		t.Error("Generating stuck on after a failed start")
	}
}

type errEngine struct{ *fakeEngine }

func (errEngine) Generate(context.Context, reply.Request) (<-chan reply.Event, error) {
	return nil, errors.New("No model configured — open Settings and choose a model folder")
}

func TestChatVMOpenAndNew(t *testing.T) {
	vm, _, st := newTestChat(t, script(reply.Summary{FinishReason: "stop"}, thinking("hmm"), text("reply")))
	_ = vm.Send("hello")
	waitIdle(t, vm)
	id := get[string](vm.CurrentID)
	vm.NewChat()
	if len(messages(vm)) != 0 || get[string](vm.Title) != NewChatTitle || get[string](vm.CurrentID) != "" {
		t.Fatal("NewChat did not clear the transcript")
	}
	if err := vm.Open(id); err != nil {
		t.Fatal(err)
	}
	msgs := messages(vm)
	if len(msgs) != 2 || msgs[1].Text() != "reply" || !get[bool](msgs[1].HasThinking) {
		t.Errorf("reopened transcript wrong: %d messages", len(msgs))
	}
	if err := vm.Open("missing"); err == nil || !strings.Contains(get[string](vm.Error), "could not open") {
		t.Errorf("Open(missing) = %v, banner %q", err, get[string](vm.Error))
	}
	if !vm.Rename(id, "Renamed") {
		t.Fatal("Rename of the open conversation returned false")
	}
	if c, _ := st.Load(id); c.Title != "Renamed" {
		t.Errorf("stored title = %q", c.Title)
	}
}

func TestTitleFrom(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hello", "hello"},
		{"  two\nlines", "two"},
		{strings.Repeat("é", 60), strings.Repeat("é", 48) + "…"},
	}
	for _, tt := range tests {
		if got := titleFrom(tt.in); got != tt.want {
			t.Errorf("titleFrom(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestChatVMStatusBeforeFirstToken(t *testing.T) {
	vm, _, _ := newTestChat(t, func(ctx context.Context, _ reply.Request, out chan<- reply.Event) {
		out <- reply.Event{Kind: reply.EventStatus, Text: "Loading model…"}
		<-ctx.Done()
		out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishCancelled}}
	})
	_ = vm.Send("hi")
	a := messages(vm)[1]
	deadline := time.Now().Add(5 * time.Second)
	for withoutSeconds(get[string](a.Status)) != "Loading model…" && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := withoutSeconds(get[string](a.Status)); got != "Loading model…" {
		t.Errorf("status = %q while the model loads", got)
	}
	// A step the engine cannot measure (ONNX Runtime's session) still moves: the seconds.
	for get[string](a.Status) != "Loading model… · 1 s" && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := get[string](a.Status); got != "Loading model… · 1 s" {
		t.Errorf("status = %q after a second, want it counted", got)
	}
	vm.Stop()
	waitIdle(t, vm)
	if got := get[string](a.Status); got != "" {
		t.Errorf("status = %q after the reply", got)
	}
}

// The seconds are counted only while the engine's status is the stream's last word: after
// another event the status line is someone else's (the tool loop clears it while the user
// approves a call), and no tick writes over it.
func TestChatVMSecondsStopAfterTheStatus(t *testing.T) {
	noted := make(chan struct{})
	vm, _, _ := newTestChat(t, func(ctx context.Context, _ reply.Request, out chan<- reply.Event) {
		out <- reply.Event{Kind: reply.EventStatus, Text: "Loading model…"}
		out <- reply.Event{Kind: reply.EventNotice, Text: "a note"}
		close(noted)
		<-ctx.Done()
		out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishCancelled}}
	})
	_ = vm.Send("hi")
	a := messages(vm)[1]
	<-noted
	time.Sleep(50 * time.Millisecond) // the notice is taken in
	_ = a.Status.Set("")              // as the tool loop does while a call waits for approval
	time.Sleep(time.Second + 100*time.Millisecond)
	if got := get[string](a.Status); got != "" {
		t.Errorf("status = %q a second after it was cleared, want it left alone", got)
	}
	vm.Stop()
	waitIdle(t, vm)
}

// TestChatVMCoalesces sends 3,000 token events as fast as the channel takes them: the answer
// binding must change about once per FlushEvery, not once per token.
func TestChatVMCoalesces(t *testing.T) {
	release := make(chan struct{})
	vm, _, _ := newTestChat(t, func(ctx context.Context, req reply.Request, out chan<- reply.Event) {
		<-release
		for i := 0; i < 3000; i++ {
			out <- text("tok ")
		}
		out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: "stop"}}
	})
	vm.FlushEvery = time.Second / 60
	_ = vm.Send("go")
	var updates atomic.Int64
	messages(vm)[1].Answer.Tail.AddListener(binding.NewDataListener(func() { updates.Add(1) }))
	start := time.Now()
	close(release)
	waitIdle(t, vm)
	elapsed := time.Since(start)
	if got := messages(vm)[1].Text(); len(got) != 3000*4 {
		t.Fatalf("answer has %d bytes, want %d", len(got), 3000*4)
	}
	// One per tick plus the final flush and close, with slack for a slow machine.
	limit := int64(elapsed/vm.FlushEvery) + 5
	if n := updates.Load(); n > limit {
		t.Errorf("%d binding updates for 3000 tokens in %v, want at most %d (~60/s)", n, elapsed, limit)
	}
}
