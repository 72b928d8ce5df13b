package testenv

import (
	"time"

	"edgechat/internal/cputime"
)

// Clock times a piece of work for a bound a test puts on it. Where the system tells (Unix) it
// counts the process's CPU time — user and system, all threads — which other jobs on a
// shared machine do not stretch as they stretch wall time (a 2-core CI machine under load ran
// a 2 s extraction in 21 s of wall time); elsewhere it counts wall time.
type Clock struct {
	wall time.Time
	cpu  time.Duration
	ok   bool
}

// StartClock starts a Clock.
func StartClock() Clock {
	cpu, ok := cputime.Process()
	return Clock{wall: time.Now(), cpu: cpu, ok: ok}
}

// Elapsed is the CPU time used since the start, or the wall time where there is none.
func (c Clock) Elapsed() time.Duration {
	if now, ok := cputime.Process(); ok && c.ok {
		return now - c.cpu
	}
	return time.Since(c.wall)
}

// Wall is the wall time since the start, for logs.
func (c Clock) Wall() time.Duration { return time.Since(c.wall) }

// raceSlowdown is how many times the CPU-time bound of a test is widened under the race
// detector, which instruments every memory access of Go code, the standard library's
// included: inflating a PDF page's 100 MB bomb takes 1.3 s of CPU built normally and
// 19–30 s under it on a 2-core machine shared with other jobs.
const raceSlowdown = 3

// Bound is the CPU time a test allows for work it bounds at d: d, or raceSlowdown times d
// under the race detector.
func Bound(d time.Duration) time.Duration {
	if RaceEnabled {
		return raceSlowdown * d
	}
	return d
}
