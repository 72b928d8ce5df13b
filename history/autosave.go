package history

import (
	"log/slog"
	"sync"
	"time"
)

// Autosaver saves a conversation while a reply streams into it: every Update schedules a save,
// and saves happen at most once per interval, so a reply of hundreds of tokens costs a few
// writes. The Autosaver owns the conversation: change it only through Update. Close saves
// what is left. Methods may be called from any goroutine.
type Autosaver struct {
	s     *Store
	every time.Duration

	saveMu sync.Mutex // one save at a time, in order

	mu     sync.Mutex
	c      *Conversation
	dirty  bool
	timer  *time.Timer
	last   time.Time // when the latest save started
	closed bool
	err    error // from the latest save
	notify func(error)
}

// NewAutosaver returns an Autosaver for c that saves at most once per every (1s when every ≤ 0).
// c gets an ID now if it has none, so the caller can refer to it before the first save.
func (s *Store) NewAutosaver(c *Conversation, every time.Duration) *Autosaver {
	if every <= 0 {
		every = time.Second
	}
	if c.ID == "" {
		c.ID = NewID()
	}
	return &Autosaver{s: s, every: every, c: c}
}

// Update applies mutate to the conversation (under the Autosaver's lock; keep it short) and
// schedules a save. After Close, Update saves at once.
func (a *Autosaver) Update(mutate func(c *Conversation)) {
	a.mu.Lock()
	mutate(a.c)
	a.dirty = true
	if a.closed {
		a.mu.Unlock()
		a.flush()
		return
	}
	a.scheduleLocked()
	a.mu.Unlock()
}

// scheduleLocked starts the timer for the next save unless one is pending.
func (a *Autosaver) scheduleLocked() {
	if a.timer != nil {
		return
	}
	delay := max(a.every-time.Since(a.last), 0)
	a.timer = time.AfterFunc(delay, func() { a.flush() })
}

// Snapshot returns a copy of the conversation as it is now, safe to read while updates go on.
func (a *Autosaver) Snapshot() *Conversation {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.c.clone()
}

// Notify sets f to be called after every save, on the goroutine that saved, with the
// save's error: non-nil while saving fails (the Autosaver keeps the conversation and
// retries), nil once a save succeeds.
func (a *Autosaver) Notify(f func(err error)) {
	a.mu.Lock()
	a.notify = f
	a.mu.Unlock()
}

// Err returns the error of the latest save, nil when it succeeded. A failed save is retried.
func (a *Autosaver) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Close stops the timer and saves any change not yet saved; it returns that save's error.
func (a *Autosaver) Close() error {
	a.mu.Lock()
	a.closed = true
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
	a.mu.Unlock()
	return a.flush()
}

// flush saves a snapshot of the conversation if it changed since the last save.
func (a *Autosaver) flush() error {
	a.saveMu.Lock()
	defer a.saveMu.Unlock()

	a.mu.Lock()
	a.timer = nil
	if !a.dirty {
		a.mu.Unlock()
		return nil
	}
	snap := a.c.clone()
	a.dirty = false
	a.last = time.Now()
	a.mu.Unlock()

	err := a.s.Save(snap) // outside a.mu: Update does not wait for the disk

	a.mu.Lock()
	defer a.mu.Unlock()
	a.err = err
	if f := a.notify; f != nil {
		a.mu.Unlock()
		f(err)
		a.mu.Lock()
	}
	if err != nil {
		slog.Warn("autosave failed; will retry", "conversation", snap.ID, "err", err)
		a.dirty = true
		if !a.closed {
			a.scheduleLocked()
		}
		return err
	}
	a.c.Created, a.c.Updated = snap.Created, snap.Updated
	if a.c.Title == "" {
		a.c.Title = snap.Title
	}
	return nil
}
