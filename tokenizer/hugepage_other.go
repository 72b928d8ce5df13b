//go:build !linux

package tokenizer

// adviseHuge does nothing here (see the Linux version).
func adviseHuge[T any](s []T) {}
