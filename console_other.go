//go:build !windows

package main

// leaveOwnConsole does nothing outside Windows.
func leaveOwnConsole() {}
