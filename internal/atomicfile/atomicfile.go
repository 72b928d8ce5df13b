// Package atomicfile replaces files so that a crash leaves either the old or the new version,
// never a mix — for settings and conversations, which must never be lost.
package atomicfile

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"io"
	"os"
	"path/filepath"
)

// TempMarker separates a file's name from the random suffix of its temporary file
// (".NAME.tmp-123"); a reader that finds such a file knows a write was interrupted.
const TempMarker = ".tmp-"

// Write replaces path with data: it writes a temporary file in the same folder (mode 0600),
// fsyncs it, renames it over path and fsyncs the folder. On Windows the rename waits (up to
// ReplaceWait) while another program holds path open without sharing its deletion — a virus
// scanner, a backup or sync tool, an editor; see replace. beforeRename, when set (tests), runs
// between the fsync and the rename, with the temporary file's path.
func Write(path string, data []byte, beforeRename func(tmp string) error) error {
	return write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, beforeRename)
}

// WriteStream replaces path with what write writes, as Write does, without holding it all
// in memory (writes are buffered).
func WriteStream(path string, fill func(w io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := fill(bw); err != nil {
			return err
		}
		return bw.Flush()
	}, nil)
}

func write(path string, fill func(w io.Writer) error, beforeRename func(tmp string) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+TempMarker+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if beforeRename != nil {
		if err := beforeRename(tmp); err != nil {
			return err
		}
	}
	if err := replace(tmp, path); err != nil {
		return err
	}
	SyncDir(dir)
	return nil
}

// SyncDir makes renames in dir durable. Best effort: Windows cannot fsync a folder.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// WriteGob replaces path with v in encoding/gob, creating its folder (mode 0700: the files
// hold what the person keeps private) as Write does the file.
func WriteGob(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return err
	}
	return Write(path, buf.Bytes(), nil)
}
