//go:build !windows

package host

import (
	"errors"
	"syscall"
)

// ConnRefused tells whether err is a refused connection (nothing listens at the address).
func ConnRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
