package hub

import (
	"sync"
	"time"
)

// Progress is a snapshot of a download.
type Progress struct {
	Repo   string `json:"repo"`
	Commit string `json:"commit,omitempty"`
	// State is "resolving", "waiting" (another download of this model holds the lock),
	// "downloading", "retrying" (a try failed: the next starts in RetryIn) or "done".
	State string `json:"state"`
	// RetryIn is the time left before the next try and Problem what ended the last one
	// (State "retrying").
	RetryIn time.Duration `json:"-"`
	Problem string        `json:"problem,omitempty"`
	// Stalled is how long no byte has arrived while downloading (0 while bytes flow).
	Stalled time.Duration `json:"-"`
	// Retries counts the tries of the current file after its first (0 on the first try).
	Retries int `json:"retries,omitempty"`
	// File is the file being fetched, FileDone and FileSize its bytes.
	File     string `json:"file,omitempty"`
	FileDone int64  `json:"file_bytes"`
	FileSize int64  `json:"file_size"`
	// Done and Total are the bytes of every file chosen (files already present count as done).
	Done  int64 `json:"bytes"`
	Total int64 `json:"total"`
	// Speed is bytes per second over the last few seconds; ETA is the time left at that speed
	// (0 when unknown).
	Speed   float64       `json:"speed"`
	ETA     time.Duration `json:"-"`
	FileETA time.Duration `json:"-"`
}

// Fraction is Done/Total in [0, 1].
func (p Progress) Fraction() float64 {
	if p.Total <= 0 {
		return 0
	}
	return min(1, float64(p.Done)/float64(p.Total))
}

// tracker counts bytes from the fetcher and reports progress at most every interval, always
// from one goroutine at a time.
type tracker struct {
	mu       sync.Mutex
	p        Progress
	report   func(Progress)
	every    time.Duration
	last     time.Time
	samples  []sample  // (time, done) of the last few seconds, for the speed
	lastByte time.Time // when the last byte arrived (or the download started)
	retryAt  time.Time // when the next try starts (State "retrying")
}

type sample struct {
	t time.Time
	n int64
}

const speedWindow = 5 * time.Second

func newTracker(repo string, report func(Progress), every time.Duration) *tracker {
	return &tracker{p: Progress{Repo: repo, State: "resolving"}, report: report, every: every}
}

// update changes the snapshot and reports it now when force is set, else when due.
func (t *tracker) update(force bool, f func(p *Progress)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f(&t.p)
	now := time.Now()
	if !force && now.Sub(t.last) < t.every {
		return
	}
	t.last = now
	t.samples = append(t.samples, sample{now, t.p.Done})
	for len(t.samples) > 2 && now.Sub(t.samples[0].t) > speedWindow {
		t.samples = t.samples[1:]
	}
	t.p.Speed, t.p.ETA, t.p.FileETA, t.p.Stalled, t.p.RetryIn = 0, 0, 0, 0, 0
	switch t.p.State {
	case "downloading", "retrying":
		if t.lastByte.IsZero() {
			t.lastByte = now
		}
		if d := now.Sub(t.lastByte); d >= time.Second {
			t.p.Stalled = d.Truncate(time.Second)
		}
		if t.p.State == "retrying" {
			t.p.RetryIn = max(0, t.retryAt.Sub(now))
		}
	}
	if s := t.samples[0]; now.Sub(s.t) > 200*time.Millisecond && t.p.Done > s.n {
		t.p.Speed = float64(t.p.Done-s.n) / now.Sub(s.t).Seconds()
		t.p.ETA = time.Duration(float64(t.p.Total-t.p.Done) / t.p.Speed * float64(time.Second))
		t.p.FileETA = time.Duration(float64(t.p.FileSize-t.p.FileDone) / t.p.Speed * float64(time.Second))
	}
	if t.p.Stalled > 0 { // no byte for a second or more: nothing flows now
		t.p.Speed, t.p.ETA, t.p.FileETA = 0, 0, 0
	}
	if t.report != nil {
		t.report(t.p)
	}
}

// add counts n bytes of the current file (negative: discarded).
func (t *tracker) add(n int64) {
	t.update(false, func(p *Progress) {
		p.Done += n
		p.FileDone += n
		if n > 0 {
			t.lastByte = time.Now()
		}
	})
}

// retrying reports that a try failed with err and the next starts after wait.
func (t *tracker) retrying(wait time.Duration, err error) {
	t.update(true, func(p *Progress) {
		p.State, p.Problem = "retrying", err.Error()
		p.Retries++
		t.retryAt = time.Now().Add(wait)
	})
}

// retried reports that the next try starts.
func (t *tracker) retried() {
	t.update(true, func(p *Progress) { p.State, p.Problem = "downloading", "" })
}

// tick reports the snapshot every interval even when no byte arrives (a stall, a back-off),
// so that what is shown follows the bytes on disk and the time without data; stop ends it.
func (t *tracker) tick(interval time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		tk := time.NewTicker(interval)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				t.mu.Lock()
				due := time.Since(t.last) >= interval
				t.mu.Unlock()
				if due {
					t.update(true, func(*Progress) {})
				}
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}
