package ui

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"edgechat/reply"

	"fyne.io/fyne/v2/test"

	"edgechat/config"
	"edgechat/history"
)

// fakeEngine's behaviour is its gen field; it records the requests it got.
type fakeEngine struct {
	mu   sync.Mutex
	reqs []reply.Request
	gen  func(ctx context.Context, req reply.Request, out chan<- reply.Event)
}

func (e *fakeEngine) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	e.mu.Lock()
	e.reqs = append(e.reqs, req)
	e.mu.Unlock()
	out := make(chan reply.Event)
	go func() {
		defer close(out)
		e.gen(ctx, req, out)
	}()
	return out, nil
}

func (e *fakeEngine) last() reply.Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reqs[len(e.reqs)-1]
}

// script returns a generator that sends events, then a Done with sum.
func script(sum reply.Summary, evs ...reply.Event) func(context.Context, reply.Request, chan<- reply.Event) {
	return func(ctx context.Context, _ reply.Request, out chan<- reply.Event) {
		for _, ev := range evs {
			select {
			case out <- ev:
			case <-ctx.Done():
				out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishCancelled}}
				return
			}
		}
		s := sum
		out <- reply.Event{Kind: reply.EventDone, Done: &s}
	}
}

func text(s string) reply.Event { return reply.Event{Kind: reply.EventText, Text: s} }
func thinking(s string) reply.Event {
	return reply.Event{Kind: reply.EventThinking, Text: s}
}

// memStore is an in-memory Conversations with autosavers that write on Close.
type memStore struct {
	mu    sync.Mutex
	convs map[string]history.Conversation
	trash map[string]history.Conversation
	// failSave, when set, is the error of every Save (a full or read-only folder).
	failSave error
	// saves records every conversation saved, as saved.
	saves []history.Conversation
}

func newMemStore() *memStore {
	return &memStore{convs: map[string]history.Conversation{}, trash: map[string]history.Conversation{}}
}

func (s *memStore) List() []history.Summary { return s.Search("") }

func (s *memStore) Search(q string) []history.Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []history.Summary
	for _, c := range s.convs {
		hit := strings.Contains(strings.ToLower(c.Title), strings.ToLower(q))
		for _, m := range c.Messages {
			hit = hit || strings.Contains(strings.ToLower(m.Content), strings.ToLower(q))
		}
		if hit {
			out = append(out, history.Summary{ID: c.ID, Title: c.Title, Updated: c.Updated, Messages: len(c.Messages)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Title < out[j].Title })
	return out
}

func (s *memStore) Load(id string) (*history.Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.convs[id]
	if !ok {
		return nil, errors.New("no conversation " + id)
	}
	c.Messages = append([]history.Message(nil), c.Messages...)
	return &c, nil
}

func (s *memStore) Save(c *history.Conversation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failSave != nil {
		return s.failSave
	}
	cp := *c
	cp.Messages = append([]history.Message(nil), c.Messages...)
	s.convs[c.ID] = cp
	s.saves = append(s.saves, cp)
	return nil
}

func (s *memStore) setFailSave(err error) {
	s.mu.Lock()
	s.failSave = err
	s.mu.Unlock()
}

func (s *memStore) Delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trash[id] = s.convs[id]
	delete(s.convs, id)
	return nil
}

func (s *memStore) Restore(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.convs[id] = s.trash[id]
	return nil
}

type memSaver struct {
	mu     sync.Mutex
	s      *memStore
	c      *history.Conversation
	notify func(error)
}

func (a *memSaver) Update(f func(c *history.Conversation)) {
	a.mu.Lock()
	f(a.c)
	err := a.s.Save(a.c) // a real autosaver writes within a second; tests want it now
	notify := a.notify
	a.mu.Unlock()
	if notify != nil {
		notify(err)
	}
}

func (a *memSaver) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.s.Save(a.c)
}

func (a *memSaver) Notify(f func(error)) {
	a.mu.Lock()
	a.notify = f
	a.mu.Unlock()
}

func (s *memStore) newSaver(c *history.Conversation) Autosaver { return &memSaver{s: s, c: c} }

// newTestChat returns a ChatVM on a fake engine and an in-memory store.
func newTestChat(t testing.TB, gen func(context.Context, reply.Request, chan<- reply.Event)) (*ChatVM, *fakeEngine, *memStore) {
	t.Helper()
	test.NewTempApp(t) // bindings deliver through the app's main-goroutine queue; no window
	eng := &fakeEngine{gen: gen}
	st := newMemStore()
	settings := config.Defaults()
	settings.SystemPrompt = "Be brief."
	vm := NewChatVM(ChatDeps{
		Engine: eng, Store: st, NewSaver: st.newSaver,
		Settings: func() config.Settings { return settings },
	})
	vm.FlushEvery = time.Millisecond
	t.Cleanup(vm.Close)
	return vm, eng, st
}

// waitIdle waits until the view model has finished streaming.
func waitIdle(t testing.TB, vm *ChatVM) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		vm.mu.Lock()
		done := vm.done
		vm.mu.Unlock()
		if done != nil {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Second):
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("reply did not finish within 5 s")
}

func messages(vm *ChatVM) []*MessageVM {
	m, _ := vm.Messages.Get()
	return m
}
