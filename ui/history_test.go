package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"edgechat/reply"

	"fyne.io/fyne/v2/test"

	"edgechat/config"
	"edgechat/history"
)

// TestRealHistoryStore runs the chat and sidebar view models on the real history package:
// the streamed reply reaches disk through the autosaver, and delete/undo work on the files.
func TestRealHistoryStore(t *testing.T) {
	test.NewTempApp(t)
	dir := t.TempDir()
	hs, err := history.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	eng := &fakeEngine{gen: script(reply.Summary{FinishReason: "stop", Backend: "npu", GeneratedTokens: 2},
		thinking("hmm"), text("Hello "), text("world"))}
	chat := NewChatVM(ChatDeps{
		Engine: eng, Store: hs,
		NewSaver: func(c *history.Conversation) Autosaver { return hs.NewAutosaver(c, 50*time.Millisecond) },
		Settings: config.Defaults,
	})
	side := NewSidebarVM(hs)
	chat.OnListChanged = side.Reload
	side.CloseIfOpen = func(string) { chat.NewChat() }

	if err := chat.Send("Greet me"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, chat)
	id := get[string](chat.CurrentID)
	chat.Close() // writes what is pending

	reopened, err := history.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := reopened.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != 2 || c.Messages[1].Content != "Hello world" || c.Messages[1].Thinking != "hmm" ||
		c.Messages[1].Stats == nil || c.Messages[1].Stats.Backend != "npu" || c.Title != "Greet me" {
		t.Fatalf("stored conversation = %+v", c)
	}

	side.Reload()
	if got := titles(side); len(got) != 1 || got[0] != "Greet me" {
		t.Fatalf("sidebar = %v", got)
	}
	if err := side.Delete(id); err != nil {
		t.Fatal(err)
	}
	if got := titles(side); len(got) != 0 {
		t.Fatalf("sidebar after delete = %v", got)
	}
	if err := side.UndoDelete(); err != nil {
		t.Fatal(err)
	}
	if got := titles(side); len(got) != 1 {
		t.Fatalf("sidebar after undo = %v", got)
	}
	if err := chat.Open(id); err != nil || len(messages(chat)) != 2 {
		t.Fatalf("reopen: %v, %d messages", err, len(messages(chat)))
	}
}

// TestStreamingReplyIsSavedAsItGrows checks that a reply still streaming is on disk.
func TestStreamingReplyIsSavedAsItGrows(t *testing.T) {
	test.NewTempApp(t)
	hs, err := history.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	chat := NewChatVM(ChatDeps{
		Engine: &fakeEngine{gen: blockingGen(started)}, Store: hs,
		NewSaver: func(c *history.Conversation) Autosaver { return hs.NewAutosaver(c, 20*time.Millisecond) },
		Settings: config.Defaults,
	})
	chat.FlushEvery = time.Millisecond
	t.Cleanup(chat.Close)
	_ = chat.Send("Tell me a long story")
	<-started
	id := get[string](chat.CurrentID)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := hs.Load(id); err == nil && len(c.Messages) == 2 && c.Messages[1].Content == "partial" {
			chat.Stop()
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the partial reply did not reach the disk while streaming")
}

// BenchmarkSidebarReloadRealStore lists 500 stored conversations through the history package.
func BenchmarkSidebarReloadRealStore(b *testing.B) {
	test.NewTempApp(b)
	hs, err := history.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		c := history.NewConversation(fmt.Sprintf("Conversation %03d", i))
		c.Messages = []history.Message{{ID: "m", Role: "user", Content: strings.Repeat("words ", 200)}}
		if err := hs.Save(c); err != nil {
			b.Fatal(err)
		}
	}
	vm := NewSidebarVM(hs)
	for b.Loop() {
		vm.Reload()
	}
	if n := len(get[[]history.Summary](vm.Items)); n != 500 {
		b.Fatalf("listed %d conversations, want 500", n)
	}
}
