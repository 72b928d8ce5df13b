//go:build !linux

package rss

import "errors"

const supported = false

var errUnsupported = errors.New("resident memory figures are read on Linux only")

func resetPeak() error { return errUnsupported }

func status(string) (int64, error) { return 0, errUnsupported }
