// Package cli holds EdgeChat's subcommands (generate, tokenize, sys, inspect, bench, serve, models, pull…).
// Each subcommand lives in its own file and registers itself in commands.
package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Env is what a subcommand may touch: its arguments and the standard streams.
type Env struct {
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Command is one subcommand.
type Command struct {
	Name    string
	Summary string
	Run     func(env Env) error
}

var commands = map[string]Command{}

// register adds a subcommand; each command file calls it from init.
func register(c Command) { commands[c.Name] = c }

// Has reports whether name is a subcommand (main opens the window otherwise).
func Has(name string) bool {
	_, ok := commands[name]
	return ok
}

// Run runs the subcommand args[0] and returns the process exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || !Has(args[0]) {
		Usage(stderr)
		return 2
	}
	c := commands[args[0]]
	if err := c.Run(Env{Args: args[1:], Stdin: stdin, Stdout: stdout, Stderr: stderr}); err != nil {
		switch err {
		case errUsage:
			return 2
		case errQuiet:
			return 1
		}
		fmt.Fprintf(stderr, "edgechat %s: %v\n", c.Name, err)
		return 1
	}
	return 0
}

// errUsage is returned by a command whose flags did not parse (the flag package has printed why).
var errUsage = fmt.Errorf("usage")

// errQuiet is returned by a command that failed and has said why on its output already.
var errQuiet = fmt.Errorf("failed")

// Usage prints how to run edgechat: the window's flags and the subcommands.
func Usage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("usage: edgechat [--config FILE] [--data-dir DIR]        open the chat window\n")
	b.WriteString("       edgechat COMMAND --help                         a command's flags\n")
	b.WriteString("       edgechat --version\n")
	b.WriteString("       edgechat COMMAND [flags]\n\ncommands:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %-10s %s\n", n, commands[n].Summary)
	}
	io.WriteString(w, b.String())
}
