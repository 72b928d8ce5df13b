// Package host answers questions about the machine EdgeChat runs on: its physical cores, its
// memory, how busy its CPU is, whether ONNX Runtime's 8-bit kernels are exact on it, and what it
// runs on (AC power, battery, energy saver). It reads /proc and /sys on Linux and the system's
// calls on Windows, and falls back to what the Go runtime knows elsewhere.
package host
