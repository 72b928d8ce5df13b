// Package rss reads the process's resident memory and its peak, for the bench command's
// memory figure. The peak can be reset on Linux only; elsewhere Supported is false.
package rss

// Supported says whether ResetPeak and Peak work on this platform.
const Supported = supported

// ResetPeak starts a new peak measurement at the current resident size.
func ResetPeak() error { return resetPeak() }

// Peak is the most memory resident since the last ResetPeak (or the process start), in bytes.
func Peak() (int64, error) { return status("VmHWM") }

// Current is the memory resident now, in bytes.
func Current() (int64, error) { return status("VmRSS") }
