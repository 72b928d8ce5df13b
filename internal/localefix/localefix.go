// Package localefix replaces a POSIX "C" locale with en_US.UTF-8 before Fyne reads it:
// Fyne cannot parse "C"/"C.UTF-8" and logs an error at start-up (seen in terminals, CI and
// containers). main imports it for its side effect.
//
// It works only because of initialisation order: Go initialises packages in the order of their
// import paths, each after its own imports, so "edgechat/internal/localefix" (which imports only
// the standard library) runs before any "fyne.io/…" package, because "edgechat" sorts before
// "fyne.io". A module path that sorted after "fyne.io" would break it; TestInitOrder fails then,
// and TestCLocale runs a process with LANG=C to check the result.
package localefix

import (
	"os"
	"strings"
)

func init() {
	if l, ok := replacement(os.Getenv); ok {
		os.Setenv("LANG", l)
	}
}

// replacement says what LANG should become, given the environment: en_US.UTF-8 when LANG is
// unset or a POSIX locale and neither LC_ALL nor LC_MESSAGES decides instead.
func replacement(getenv func(string) string) (string, bool) {
	if getenv("LC_ALL") != "" || getenv("LC_MESSAGES") != "" {
		return "", false
	}
	l := getenv("LANG")
	if l == "" || l == "C" || l == "POSIX" || strings.HasPrefix(l, "C.") {
		return "en_US.UTF-8", true
	}
	return "", false
}
