package ui

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"edgechat/config"
	"edgechat/history"
	"edgechat/reply"
)

// A new conversation is stored with its first message in one save: no saved state has a
// title without the message (a kill -9 just after Enter once left one).
func TestNewChatSavedWithFirstMessage(t *testing.T) {
	vm, _, st := newTestChat(t, script(reply.Summary{FinishReason: reply.FinishStop}, text("hello")))
	if err := vm.Send("first words"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, vm)
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.saves) == 0 {
		t.Fatal("nothing saved")
	}
	for i, c := range st.saves {
		if len(c.Messages) == 0 || c.Messages[0].Content != "first words" {
			t.Fatalf("save %d holds %q with %d messages; every save must hold the first message", i, c.Title, len(c.Messages))
		}
	}
}

// When saving fails the reply still streams, the banner says why and offers Export, the
// conversation stays in memory, and the banner goes once saving works again.
func TestSaveFailureShown(t *testing.T) {
	v, vm, _ := newTestChatView(t, script(reply.Summary{FinishReason: reply.FinishStop}, text("a reply")))
	st := vm.deps.Store.(*memStore)
	full := errors.New(`save conversation "hi" to /data: write: no space left on device — check that the folder exists, is writable and the disk is not full`)
	st.setFailSave(full)
	if err := vm.Send("hi"); err != nil {
		t.Fatalf("Send with a failing folder: %v; want the chat to go on in memory", err)
	}
	waitIdle(t, vm)
	problem := get[string](vm.SaveProblem)
	if !strings.Contains(problem, "no space left") || !strings.Contains(problem, "/data") || !strings.Contains(problem, "Export") {
		t.Errorf("banner %q does not say where, why and what to do", problem)
	}
	if !v.SaveExport.Visible() {
		t.Error("no Export button beside the banner")
	}
	if c := vm.Snapshot(); len(c.Messages) != 2 || c.Messages[1].Content != "a reply" {
		t.Errorf("conversation in memory = %+v", c)
	}
	st.setFailSave(nil)
	vm.saver.Update(func(*history.Conversation) {})
	if p := get[string](vm.SaveProblem); p != "" {
		t.Errorf("banner still shown after a save worked: %q", p)
	}
}

// Leaving a conversation that cannot be saved writes it elsewhere and says where.
func TestUnsavedConversationRescued(t *testing.T) {
	vm, _, st := newTestChat(t, script(reply.Summary{FinishReason: reply.FinishStop}, text("a reply")))
	var rescued *history.Conversation
	vm.deps.Rescue = func(c *history.Conversation) (string, error) {
		rescued = c
		return "/cache/unsaved/" + c.ID + ".json", nil
	}
	st.setFailSave(errors.New("read-only file system"))
	_ = vm.Send("keep me")
	waitIdle(t, vm)
	vm.NewChat()
	if rescued == nil || len(rescued.Messages) != 2 || rescued.Messages[0].Content != "keep me" {
		t.Fatalf("rescued %+v, want the whole conversation", rescued)
	}
	if msg := get[string](vm.Error); !strings.Contains(msg, "/cache/unsaved/") || !strings.Contains(msg, "read-only") {
		t.Errorf("banner %q does not say why and where the copy is", msg)
	}
}

// SIGTERM while a reply streams quits as closing the window does: the reply is cancelled
// and saved with its statistics.
func TestSignalQuitsLikeClose(t *testing.T) {
	s := config.Defaults()
	s.CPU.Model = modelDir(t)
	m, _ := newTestWindow(t, s)
	started := make(chan struct{})
	m.Chat.deps.Engine = &fakeEngine{gen: blockingGen(started)}
	hs := m.deps.History.(*memStore)
	if err := m.Chat.Send("a long story"); err != nil {
		t.Fatal(err)
	}
	<-started
	id := get[string](m.Chat.CurrentID)
	m.quitOnSignals()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, _ := hs.Load(id)
		if len(c.Messages) == 2 && c.Messages[1].Stats != nil {
			if got := c.Messages[1].Stats.FinishReason; got != reply.FinishCancelled || c.Messages[1].Content != "partial" {
				t.Errorf("saved reply %q finish %q, want the partial text, cancelled", c.Messages[1].Content, got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reply not saved with its statistics after SIGTERM: %+v", c.Messages)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
