// Command edgechat is a desktop chat app that runs a small language model on the user's own
// PC (NPU first, CPU as fallback). Without a subcommand it opens the chat window.
package main

import (
	"fmt"
	"os"

	"edgechat/cli"
	_ "edgechat/internal/localefix" // before Fyne reads the locale
	"edgechat/internal/version"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "--version", "-version":
			fmt.Print(version.String())
			return
		case "--help", "-help", "-h", "help":
			cli.Usage(os.Stdout)
			return
		}
	}
	if len(os.Args) > 1 && cli.Has(os.Args[1]) {
		os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	leaveOwnConsole()
	os.Exit(runApp(os.Args[1:]))
}
