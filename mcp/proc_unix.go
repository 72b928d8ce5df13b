//go:build !windows

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the server in its own process group, so stopping it stops what it started
// (npx starts node, which may start more).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func terminate(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

func kill(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
