package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// ReplaceWait bounds how long Write waits for another handle on the file to close.
var ReplaceWait = 3 * time.Second

// replace renames tmp over path (MoveFileEx with MOVEFILE_REPLACE_EXISTING). Windows refuses
// while any handle on path was opened without FILE_SHARE_DELETE — Go's os.Open, most virus
// scanners, sync clients and editors do that for a moment — with "Access is denied" or a
// sharing violation, so replace retries with a growing pause until ReplaceWait has passed.
func replace(tmp, path string) error {
	deadline := time.Now().Add(ReplaceWait)
	pause := 5 * time.Millisecond
	for {
		err := os.Rename(tmp, path)
		if err == nil || !heldOpen(err) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w (another program keeps %s open; close it and try again)", err, path)
		}
		time.Sleep(pause)
		pause = min(2*pause, 200*time.Millisecond)
	}
}

const errSharingViolation = syscall.Errno(32) // ERROR_SHARING_VIOLATION

func heldOpen(err error) bool {
	return errors.Is(err, syscall.ERROR_ACCESS_DENIED) || errors.Is(err, errSharingViolation)
}
