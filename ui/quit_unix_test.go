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
// and saved with its statistics. Quit runs on the main goroutine (here the test's, which
// runs what fyne.Do queued).
func TestSignalQuitsLikeClose(t *testing.T) {
	s := config.Defaults()
	s.CPU.Model = modelDir(t)
	m, _ := newTestWindow(t, s)
	d := newQueuedApp(t) // fyne.Do runs later on this goroutine, the main loop here
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
		d.run()
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

// After the main loop has ended (the driver's own handler got the signal first), fyne.Do
// runs its function at once on the calling goroutine, as the plain test driver does: the
// signal then does not quit from the signal goroutine (it touched the window off the main
// goroutine while main closed the chat: "Error in Fyne call thread"); main's Stopped saves
// the reply.
func TestSignalAfterLoopEndedLeavesQuitToMain(t *testing.T) {
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
	time.Sleep(300 * time.Millisecond)
	if !get[bool](m.Chat.Generating) {
		t.Fatal("the signal goroutine quit (the reply stopped) after the main loop had ended")
	}
	m.Stopped()
	c, _ := hs.Load(id)
	if len(c.Messages) != 2 || c.Messages[1].Stats == nil || c.Messages[1].Stats.FinishReason != reply.FinishCancelled {
		t.Errorf("after Stopped the reply is not saved cancelled with its statistics: %+v", c.Messages)
	}
}
