//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package tokenizer

import "os"

// readMapped reads the file at path; the function it returns does nothing (see the mapped
// version for the systems that have one).
func readMapped(path string) ([]byte, func(), error) {
	data, err := os.ReadFile(path)
	return data, func() {}, err
}
