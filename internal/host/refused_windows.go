package host

import (
	"errors"
	"syscall"

	"golang.org/x/sys/windows"
)

// ConnRefused tells whether err is a refused connection (nothing listens at the address).
// Windows reports WSAECONNREFUSED, which syscall.ECONNREFUSED (Go's stand-in for the Unix
// code) does not match.
func ConnRefused(err error) bool {
	return errors.Is(err, windows.WSAECONNREFUSED) || errors.Is(err, syscall.ECONNREFUSED)
}
