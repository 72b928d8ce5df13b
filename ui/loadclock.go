package ui

import (
	"fmt"
	"sync"
	"time"
)

// ONNX Runtime tells nothing while it creates a session (~3 s for a 28-layer model), so the
// header would stand still on the step's words: while a model loads, it also counts the
// seconds after the first ("qwen3 · starting ONNX Runtime (2 of 2) · 3 s": the step in a few
// words, the full sentence being the header's tip), as does a reply's status line before its
// first words (stream.go), which has room for the full sentence.
// Both are bindings, set from the load's or the stream's goroutine; their listeners run
// through fyne.Do, and a Set that changes nothing does nothing, so the widgets change at
// most when the engine's words do and once a second.

// loadTick is how often the seconds shown go up.
const loadTick = time.Second

// loadClock is a load's words and when it started. Safe for use from any goroutine.
type loadClock struct {
	name  string
	start time.Time
	mu    sync.Mutex
	said  string // the engine's last words
}

func newLoadClock(name string) *loadClock { return &loadClock{name: name, start: time.Now()} }

// say notes the engine's words.
func (c *loadClock) say(status string) {
	c.mu.Lock()
	c.said = status
	c.mu.Unlock()
}

// detail is the engine's full sentence, with the name (the header's tip).
func (c *loadClock) detail() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return loadingDetail(c.name, c.said)
}

// label is the header at now: the words, and the whole seconds elapsed after the first.
func (c *loadClock) label(now time.Time) string {
	c.mu.Lock()
	l := loadingLabel(c.name, c.said)
	c.mu.Unlock()
	return withSeconds(l, now.Sub(c.start))
}

// withSeconds is label with the whole seconds of d after the first ("… · 3 s").
func withSeconds(label string, d time.Duration) string {
	if d < time.Second {
		return label
	}
	return fmt.Sprintf("%s · %d s", label, int(d/time.Second))
}

// run calls show with the label every loadTick until stop is closed; it returns a channel
// closed when it has stopped (nothing is shown after that).
func (c *loadClock) run(stop <-chan struct{}, show func(string)) <-chan struct{} {
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(loadTick)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				show(c.label(now))
			}
		}
	}()
	return stopped
}
