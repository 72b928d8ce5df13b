// Package localefix replaces a POSIX "C" locale with en_US.UTF-8 before Fyne reads it:
// Fyne cannot parse "C"/"C.UTF-8" and logs an error at start-up (seen in terminals, CI and
// containers). main imports it for its side effect; it sorts, and so initialises, before Fyne.
package localefix

import (
	"os"
	"strings"
)

func init() {
	if os.Getenv("LC_ALL") != "" || os.Getenv("LC_MESSAGES") != "" {
		return
	}
	l := os.Getenv("LANG")
	if l == "" || l == "C" || l == "POSIX" || strings.HasPrefix(l, "C.") {
		os.Setenv("LANG", "en_US.UTF-8")
	}
}
