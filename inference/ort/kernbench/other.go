//go:build !(linux && amd64 && cgo)

// Command kernbench needs Linux on x86-64 with cgo (its kernel is C with x86 intrinsics); see
// main.go and NOTES.md.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "kernbench: runs on Linux x86-64 with cgo only (its kernel is C with x86 intrinsics)")
	os.Exit(2)
}
