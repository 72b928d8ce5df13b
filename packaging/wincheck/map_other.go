//go:build !windows

package main

import "errors"

func releaseMapped(string) (string, error) {
	return "", errors.New("this check maps a file with the Windows API: build it for windows")
}
