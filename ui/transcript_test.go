package ui

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"edgechat/history"
)

// longChat stores a conversation of n messages, each naming its place ("message 7").
func longChat(t *testing.T, st *memStore, n int) *history.Conversation {
	t.Helper()
	c := history.NewConversation("Long")
	for i := range n {
		role, text := "user", fmt.Sprintf("Question, message %d", i)
		if i%2 == 1 {
			role, text = "assistant", fmt.Sprintf("Answer, message %d:\n\n%s\n\n```go\nx := %d\n```", i, longParagraph, i)
		}
		c.Messages = append(c.Messages, history.Message{ID: fmt.Sprintf("m%d", i), Role: role, Content: text})
	}
	if err := st.Save(c); err != nil {
		t.Fatal(err)
	}
	return c
}

// showChatView puts a chat view of vm in a 700×600 test window and runs what it queued.
func showChatView(t *testing.T, vm *ChatVM, d *queuedDriver) (fyne.Window, *ChatView) {
	t.Helper()
	w := test.NewTempWindow(t, nil)
	v := NewChatView(vm, w, func() {})
	w.SetContent(v.Content)
	w.Resize(fyne.NewSize(700, 600))
	d.run()
	return w, v
}

// openLongChat opens a stored chat of n messages in a chat view and draws the first frame.
func openLongChat(t *testing.T, n int) (*queuedDriver, *history.Conversation, fyne.Window, *ChatView) {
	t.Helper()
	vm, _, st := newTestChat(t, nil)
	d := newQueuedApp(t)
	c := longChat(t, st, n)
	w, v := showChatView(t, vm, d)
	if err := vm.Open(c.ID); err != nil {
		t.Fatal(err)
	}
	d.run()
	frame(w)
	return d, c, w, v
}

// Opening a long conversation shows its newest messages at once, at the end of the view;
// the older ones come in batches on the main goroutine (here the queued driver's run) and
// in the end all of them are there, in order, with the view still at the end.
func TestChatViewOpenBuildsOlderInBatches(t *testing.T) {
	d, c, w, v := openLongChat(t, 41)
	shown := len(v.list.Objects)
	if shown < firstBubbles || shown == len(c.Messages) {
		t.Fatalf("%d bubbles right after opening a chat of %d, want the newest %d first", shown, len(c.Messages), firstBubbles)
	}
	checkSuffix(t, v, c)
	if got := belowEnd(v); got < -0.5 || got > 0.5 {
		t.Errorf("right after opening, the end of the transcript is %v px below the fold, want 0", got)
	}

	done := make(chan struct{})
	go func() { v.waitOlder(); close(done) }()
	batches := 0
	for wait := true; wait; {
		select {
		case <-done:
			wait = false
		case <-time.After(5 * time.Millisecond):
		}
		before := len(v.list.Objects)
		d.run()
		if len(v.list.Objects) != before {
			batches++
			checkSuffix(t, v, c)
		}
	}
	frame(w)
	checkTranscript(t, v)
	if len(v.list.Objects) != len(c.Messages) {
		t.Fatalf("%d bubbles in the end, want all %d", len(v.list.Objects), len(c.Messages))
	}
	if batches < 2 {
		t.Errorf("the older messages came in %d batches, want several", batches)
	}
	if got := belowEnd(v); got < -0.5 || got > 0.5 {
		t.Errorf("after the older messages came, the end of the transcript is %v px below the fold, want 0", got)
	}
}

// checkSuffix fails unless the bubbles shown are the newest messages of c, in order.
func checkSuffix(t *testing.T, v *ChatView, c *history.Conversation) {
	t.Helper()
	items := messages(v.vm)
	first := len(items) - len(v.list.Objects)
	for i, o := range v.list.Objects {
		m := items[first+i]
		if b := v.bubbles[m]; b == nil || b.content != o || m.Text() != c.Messages[first+i].Content {
			t.Fatalf("bubble %d of %d shown is not message %d", i, len(v.list.Objects), first+i)
		}
	}
}

// Opening another conversation while the older messages of one are still being built stops
// that: none of its bubbles turns up in the other.
func TestChatViewSwitchStopsOlderBatches(t *testing.T) {
	vm, _, st := newTestChat(t, nil)
	d := newQueuedApp(t)
	long := longChat(t, st, 30)
	short := storedChat(t, st, "Short", "question", "answer")
	_, v := showChatView(t, vm, d)
	if err := vm.Open(long.ID); err != nil {
		t.Fatal(err)
	}
	d.run()
	if err := vm.Open(short); err != nil {
		t.Fatal(err)
	}
	runUntilBuilt(d, v)
	checkTranscript(t, v)
	if len(v.list.Objects) != 2 || len(v.bubbles) != 2 {
		t.Errorf("after switching to a chat of 2 messages: %d bubbles shown, %d kept", len(v.list.Objects), len(v.bubbles))
	}
}

// Scrolled up while the older messages come in, the view keeps showing what it showed: the
// batches put theirs above it without moving it.
func TestChatViewOlderBatchesKeepScrolledView(t *testing.T) {
	d, c, w, v := openLongChat(t, 41)
	if len(v.list.Objects) == len(c.Messages) {
		t.Fatal("all messages were built at once; the test needs batches")
	}
	// Scroll up to the oldest message built so far, as the wheel does.
	top := v.list.Objects[0]
	v.scroll.ScrollToOffset(fyne.NewPos(0, 0))
	v.scroll.OnScrolled(v.scroll.Offset)
	if v.follow {
		t.Fatal("scrolled to the top, the view still follows the end")
	}
	at := top.Position().Y - v.scroll.Offset.Y
	runUntilBuilt(d, v)
	frame(w)
	checkTranscript(t, v)
	if got := top.Position().Y - v.scroll.Offset.Y; got < at-0.5 || got > at+0.5 {
		t.Errorf("the message in view moved from %v to %v px while the older ones came", at, got)
	}
}
