package main

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// folderDocs lists the documents of the given kinds in a folder and its subfolders, sorted by
// path, leaving out those larger than maxBytes (--dir: a corpus fetched by hand, such as a PDF
// reader's test files).
func folderDocs(dir string, kinds []string, maxBytes int64) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || !isDoc(strings.ToLower(d.Name()), kinds) {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Size() <= maxBytes {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
