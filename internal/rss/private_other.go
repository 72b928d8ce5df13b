//go:build !linux && !windows

package rss

import "errors"

const privateSupported = false

func private() (int64, error) {
	return 0, errors.New("private memory is read on Linux and Windows only")
}
