// Package host answers questions about the machine EdgeChat runs on: its physical cores and
// its memory. It reads /proc on Linux and falls back to what the Go runtime knows elsewhere.
package host
