package ui

import (
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"edgechat/config"
	"edgechat/reply"
)

// With a base model the window completes text: the notice shows, the composer's text goes
// to the engine as a raw prompt (no system prompt, roles or history) and the reply continues
// it; after the settings name a chat model, the next message is a chat request again.
func TestChatViewCompletesTextOnBaseModel(t *testing.T) {
	test.NewTempApp(t)
	var base atomic.Bool
	base.Store(true)
	eng := &fakeEngine{gen: script(reply.Summary{FinishReason: reply.FinishLength, GeneratedTokens: 3}, text(", there was"), text(" a girl"))}
	st := newMemStore()
	settings := config.Defaults()
	settings.SystemPrompt = "Be brief."
	vm := NewChatVM(ChatDeps{Engine: eng, Store: st, NewSaver: st.newSaver,
		Settings: func() config.Settings { return settings }, BaseModel: base.Load})
	vm.FlushEvery = time.Millisecond
	t.Cleanup(vm.Close)
	w := test.NewTempWindow(t, nil)
	v := NewChatView(vm, w, func() {})
	w.SetContent(v.Content)
	w.Resize(fyne.NewSize(700, 600))

	if !v.CompleteNotice.Visible() || v.Composer.PlaceHolder != completeHint || v.Attach.Visible() {
		t.Fatalf("base model: notice shown %v, placeholder %q, Attach shown %v", v.CompleteNotice.Visible(), v.Composer.PlaceHolder, v.Attach.Visible())
	}
	for _, prompt := range []string{"Once upon a time", "The dog"} {
		test.Type(v.Composer, prompt)
		v.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		waitIdle(t, vm)
		got := eng.last()
		want := reply.Request{Prompt: &reply.Prompt{Text: prompt}, MaxTokens: got.MaxTokens, Sampling: got.Sampling, ConversationID: got.ConversationID}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request for %q (-want +got):\n%s", prompt, diff)
		}
	}
	msgs := messages(vm)
	if len(msgs) != 4 || msgs[3].Text() != ", there was a girl" {
		t.Fatalf("transcript: %d messages, last %q", len(msgs), msgs[len(msgs)-1].Text())
	}

	base.Store(false)
	vm.RefreshMode()
	if v.CompleteNotice.Visible() || v.Composer.PlaceHolder != chatHint || !v.Attach.Visible() {
		t.Fatalf("chat model: notice shown %v, placeholder %q, Attach shown %v", v.CompleteNotice.Visible(), v.Composer.PlaceHolder, v.Attach.Visible())
	}
	test.Type(v.Composer, "Hi")
	v.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	waitIdle(t, vm)
	if got := eng.last(); got.Prompt != nil || len(got.Messages) != 6 || got.Messages[0].Role != "system" {
		t.Errorf("chat request after the switch: prompt %v, %d messages", got.Prompt, len(got.Messages))
	}
}

// When a completion fills a base model's context, the note says to send a shorter text: each
// message is a new start there, so "start a new chat to go on" (the chat's advice) is wrong.
func TestCompletionContextNoteSaysShorterText(t *testing.T) {
	test.NewTempApp(t)
	eng := &fakeEngine{gen: script(reply.Summary{FinishReason: reply.FinishLength, StopCause: reply.StopContext, ContextTokens: 512, GeneratedTokens: 500}, text(", there was"))}
	st := newMemStore()
	vm := NewChatVM(ChatDeps{Engine: eng, Store: st, NewSaver: st.newSaver,
		Settings: config.Defaults, BaseModel: func() bool { return true }})
	vm.FlushEvery = time.Millisecond
	t.Cleanup(vm.Close)
	vm.RefreshMode()
	_ = vm.Draft.Set("Once upon a time")
	if err := vm.SendDraft(); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, vm)
	msgs := messages(vm)
	want := "Stopped: your text and its continuation filled the model's 512-token context — send a shorter text, or use a model with a longer context"
	if got := get[string](msgs[len(msgs)-1].Notes); got != want {
		t.Errorf("note %q, want %q", got, want)
	}
}
