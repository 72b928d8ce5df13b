package ui

import (
	"testing"
	"time"

	"edgechat/history"
	"edgechat/reply"
)

// storedChat saves a conversation of one user message and one reply and returns its ID.
func storedChat(t *testing.T, st *memStore, title, question, answer string) string {
	t.Helper()
	c := history.NewConversation(title)
	now := time.Now()
	c.Messages = []history.Message{
		{ID: history.NewID(), Role: "user", Content: question, Created: now},
		{ID: history.NewID(), Role: "assistant", Content: answer, Created: now},
	}
	if err := st.Save(c); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// Switching between conversations of the same length shows the new one's bubbles (a list
// binding notifies only on a length change), and Edit last acts on what is shown.
func TestChatViewSwitchSameLength(t *testing.T) {
	v, vm, _ := newTestChatView(t, script(reply.Summary{FinishReason: reply.FinishStop}, text("again")))
	st := vm.deps.Store.(*memStore)
	a := storedChat(t, st, "A", "question A", "answer A")
	b := storedChat(t, st, "B", "question B", "answer B")
	for _, id := range []string{a, b, a} {
		if err := vm.Open(id); err != nil {
			t.Fatal(err)
		}
		want, _ := st.Load(id)
		msgs := messages(vm)
		if len(v.list.Objects) != len(want.Messages) {
			t.Fatalf("open %s: %d bubbles, want %d", want.Title, len(v.list.Objects), len(want.Messages))
		}
		for i, m := range msgs {
			bub := v.bubbles[m]
			if bub == nil || v.list.Objects[i] != bub.content || bub.msg.Text() != want.Messages[i].Content {
				t.Fatalf("open %s: bubble %d does not show %q", want.Title, i, want.Messages[i].Content)
			}
		}
	}
	if err := vm.Open(b); err != nil {
		t.Fatal(err)
	}
	v.EditLast.OnTapped()
	if got := get[string](vm.Draft); got != "question B" {
		t.Errorf("Edit last on B took back %q", got)
	}
	if c, _ := st.Load(a); len(c.Messages) != 2 {
		t.Errorf("Edit last on B changed A: %d messages", len(c.Messages))
	}
	if len(v.list.Objects) != 0 {
		t.Errorf("after Edit last on B's only turn: %d bubbles shown", len(v.list.Objects))
	}
}
