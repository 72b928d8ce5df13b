package history

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// countWrites makes s count its file writes.
func countWrites(s *Store) *atomic.Int32 {
	var n atomic.Int32
	s.beforeRename = func(string) error { n.Add(1); return nil }
	return &n
}

func TestAutosaverCoalesces(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	writes := countWrites(s)
	c := NewConversation("Streaming")
	c.Messages = []Message{{Role: RoleUser, Content: "Tell me a story"}, {Role: RoleAssistant}}
	const every = 100 * time.Millisecond
	a := s.NewAutosaver(c, every)

	start := time.Now()
	for i := range 200 { // ~400ms of tokens
		a.Update(func(c *Conversation) { c.Messages[1].Content += fmt.Sprintf("tok%d ", i) })
		time.Sleep(2 * time.Millisecond)
	}
	elapsed := time.Since(start)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// At most one save per interval, plus the first (immediate) one and Close's.
	limit := int32(elapsed/every) + 2
	if n := writes.Load(); n < 2 || n > limit {
		t.Errorf("%d saves in %v for 200 updates; want 2..%d (≤ 1 per %v)", n, elapsed, limit, every)
	}
	got, err := mustOpen(t, dir).Load(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := c.Messages[1].Content; got.Messages[1].Content != want {
		t.Errorf("saved reply has %d bytes, want all %d (Close must flush)", len(got.Messages[1].Content), len(want))
	}
}

func TestAutosaverCloseFlushesAndLaterUpdatesSave(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	writes := countWrites(s)
	a := s.NewAutosaver(&Conversation{}, time.Hour)
	a.Update(func(c *Conversation) { c.Title = "first" }) // saved at once
	waitFor(t, func() bool { return writes.Load() == 1 })
	a.Update(func(c *Conversation) { c.Title = "second" })
	a.Update(func(c *Conversation) { c.Title = "third" }) // would wait for the hour
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if n := writes.Load(); n != 2 {
		t.Errorf("%d writes, want 2 (first, then Close)", n)
	}
	if got := s.List(); len(got) != 1 || got[0].Title != "third" {
		t.Errorf("List after Close = %v", got)
	}
	a.Update(func(c *Conversation) { c.Title = "after close" })
	if got := s.List(); got[0].Title != "after close" {
		t.Errorf("Update after Close not saved: %v", got)
	}
	if err := a.Close(); err != nil || writes.Load() != 3 {
		t.Errorf("second Close: err %v, writes %d (want no extra write)", err, writes.Load())
	}
}

func TestAutosaverRetriesFailedSave(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	var fail atomic.Bool
	fail.Store(true)
	s.beforeRename = func(string) error {
		if fail.Load() {
			return errors.New("disk full")
		}
		return nil
	}
	a := s.NewAutosaver(NewConversation("Retry"), 20*time.Millisecond)
	a.Update(func(c *Conversation) { c.Messages = append(c.Messages, Message{Role: RoleUser, Content: "hi"}) })
	waitFor(t, func() bool { return a.Err() != nil })
	fail.Store(false)
	waitFor(t, func() bool { return len(s.List()) == 1 })
	if err := a.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A failing save is reported through Notify, and so is the save that succeeds after it.
func TestAutosaverNotifies(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	full := errors.New("no space left on device")
	var failing atomic.Bool
	failing.Store(true)
	s.beforeRename = func(string) error {
		if failing.Load() {
			return full
		}
		return nil
	}
	results := make(chan error, 16)
	a := s.NewAutosaver(NewConversation("Notify"), 10*time.Millisecond)
	a.Notify(func(err error) { results <- err })
	a.Update(func(c *Conversation) { c.Messages = append(c.Messages, Message{Role: RoleUser, Content: "hi"}) })
	if err := <-results; !errors.Is(err, full) {
		t.Fatalf("first save reported %v, want %v", err, full)
	}
	failing.Store(false) // the retry a tick later succeeds
	for err := range results {
		if err == nil {
			break
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}
