//go:build unix

package ui

import (
	"os"
	"syscall"
	"testing"
	"time"

	"edgechat/config"
	"edgechat/reply"
)

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
