//go:build demo

package main

import (
	"flag"

	"edgechat/internal/demo"
)

// demoFlag adds --demo-engine: answer with a canned reply instead of a model (screenshots).
func demoFlag(fs *flag.FlagSet) {
	fs.BoolFunc("demo-engine", "answer with a built-in demo engine instead of a model (screenshots only)", func(string) error {
		demoEngine = demo.Engine{}
		return nil
	})
}
