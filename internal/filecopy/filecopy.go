// Package filecopy copies files, or links them where a link serves as well.
package filecopy

import (
	"errors"
	"io"
	"os"
)

// Copy writes a copy of file from at to (created or truncated).
func Copy(from, to string) (err error) {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	_, err = io.Copy(out, in)
	return err
}

// LinkOrCopy makes to name the same bytes as from: a hard link (no space taken), else a
// copy (another volume, a file system without links). Writing to either name afterwards
// may change both.
func LinkOrCopy(from, to string) error {
	if os.Link(from, to) == nil {
		return nil
	}
	return Copy(from, to)
}
