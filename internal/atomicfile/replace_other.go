//go:build !windows

package atomicfile

import "os"

// replace renames tmp over path; a POSIX rename replaces a file whoever holds it open.
func replace(tmp, path string) error { return os.Rename(tmp, path) }
