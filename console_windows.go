package main

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	kernel32              = windows.NewLazySystemDLL("kernel32.dll")
	getConsoleProcessList = kernel32.NewProc("GetConsoleProcessList")
	freeConsole           = kernel32.NewProc("FreeConsole")
)

// leaveOwnConsole closes the console window Windows opened for edgechat.com when it was
// started by a double-click rather than from cmd or PowerShell: the console is then this
// process's alone. EdgeChat.exe (a GUI program) has no console, and one shared with a shell
// is left alone.
func leaveOwnConsole() {
	var pids [2]uint32
	n, _, _ := getConsoleProcessList.Call(uintptr(unsafe.Pointer(&pids[0])), uintptr(len(pids)))
	if n == 1 {
		freeConsole.Call()
	}
}
