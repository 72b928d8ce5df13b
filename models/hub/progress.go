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
	// "downloading" or "done".
	State string `json:"state"`
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
	mu      sync.Mutex
	p       Progress
	report  func(Progress)
	every   time.Duration
	last    time.Time
	samples []sample // (time, done) of the last few seconds, for the speed
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
	t.p.Speed, t.p.ETA, t.p.FileETA = 0, 0, 0
	if s := t.samples[0]; now.Sub(s.t) > 200*time.Millisecond && t.p.Done > s.n {
		t.p.Speed = float64(t.p.Done-s.n) / now.Sub(s.t).Seconds()
		t.p.ETA = time.Duration(float64(t.p.Total-t.p.Done) / t.p.Speed * float64(time.Second))
		t.p.FileETA = time.Duration(float64(t.p.FileSize-t.p.FileDone) / t.p.Speed * float64(time.Second))
	}
	if t.report != nil {
		t.report(t.p)
	}
}

// add counts n bytes of the current file (negative: discarded).
func (t *tracker) add(n int64) {
	t.update(false, func(p *Progress) { p.Done += n; p.FileDone += n })
}
