// Package cputime reads the CPU time (user and system, all threads) this process has used. The
// benchmarks and the tests' clocks count it beside wall time: other jobs on a shared machine
// stretch wall time, not the CPU time a piece of work takes.
package cputime

import "time"

// Process is the CPU time this process has used so far, and whether the system told it (Unix
// and Windows do; elsewhere it is 0, false).
func Process() (time.Duration, bool) { return process() }

// Used is Process's time, 0 where the system does not tell: for benchmarks, which print it
// beside wall time.
func Used() time.Duration {
	d, _ := process()
	return d
}
