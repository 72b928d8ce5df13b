//go:build !demo

package main

import "flag"

// demoFlag adds nothing: release builds have no demo engine.
func demoFlag(*flag.FlagSet) {}
