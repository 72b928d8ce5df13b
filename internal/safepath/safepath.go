// Package safepath checks names that come from outside — a server's answer, a downloaded
// model's configuration, a conversation file — before they become paths. The rules are
// Windows' as well as Unix's on every system, so that a test on Linux proves what a PC does:
// no separators of either kind, no drive letters or ':' (alternate data streams), no device
// names (CON, NUL, COM1, …), no trailing dots or spaces (Windows drops them), no control
// characters, no "." or "..".
package safepath

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxName is the longest name of one path component, in bytes (NTFS and ext4 allow 255).
// MaxPath is the longest relative path Rel accepts, in bytes.
const (
	MaxName = 255
	MaxPath = 1024
)

// forbidden are the characters Windows refuses in a name (and both separators).
const forbidden = `/\:*?"<>|`

// Name returns nil when s can be one component of a path on every system, else why not
// (worded to follow the name: `"x:y" holds ':'`).
func Name(s string) error {
	switch {
	case s == "":
		return errors.New("is empty")
	case s == "." || s == "..":
		return fmt.Errorf("%q names a folder itself or its parent", s)
	case len(s) > MaxName:
		return fmt.Errorf("%q… is longer than %d bytes", s[:32], MaxName)
	case !utf8.ValidString(s):
		return fmt.Errorf("%q is not valid UTF-8", s)
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return fmt.Errorf("%q holds a control character", s)
		}
		if strings.ContainsRune(forbidden, r) {
			return fmt.Errorf("%q holds %q, which Windows does not allow in a name", s, r)
		}
	}
	if c := s[len(s)-1]; c == '.' || c == ' ' {
		return fmt.Errorf("%q ends with a dot or a space, which Windows drops", s)
	}
	if Reserved(s) {
		return fmt.Errorf("%q is a device name on Windows", s)
	}
	return nil
}

// Rel returns nil when p — slash-separated, relative — names a path below a folder on every
// system, else why not (worded to follow p: "it is absolute").
func Rel(p string) error {
	if p == "" {
		return errors.New("it is empty")
	}
	if len(p) > MaxPath {
		return fmt.Errorf("it is longer than %d bytes", MaxPath)
	}
	if p[0] == '/' {
		return errors.New("it is absolute")
	}
	for part := range strings.SplitSeq(p, "/") {
		if part == "" {
			return errors.New("it has an empty part (//, or a / at the end)")
		}
		if err := Name(part); err != nil {
			return fmt.Errorf("its part %w", err)
		}
	}
	return nil
}

// devices are Windows' reserved device names (compared in upper case). COM and LPT also take
// the superscript digits ¹²³.
var devices = map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true}

// Reserved reports whether Windows takes s as a device: CON, PRN, AUX, NUL, COM0–9, LPT0–9
// (and COM¹²³, LPT¹²³), CONIN$ and CONOUT$, in any case, alone or before an extension
// ("nul.txt") and trailing spaces.
func Reserved(s string) bool {
	base, _, _ := strings.Cut(s, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	if devices[base] {
		return true
	}
	if len(base) < 4 || (base[:3] != "COM" && base[:3] != "LPT") {
		return false
	}
	switch d := base[3:]; d {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}
