package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// deletingPrefix names a model folder while Delete removes it.
const deletingPrefix = ".deleting-"

// ErrBusy is returned by Delete while a download of the model holds its repository's lock
// (in this process or another copy of EdgeChat).
var ErrBusy = errors.New("a download of this model is running")

// Delete removes the model folder path, which must lie inside modelsDir (a folder that
// Pull downloads into, or one earlier versions did). Every name is opened through an os.Root
// of modelsDir: a path outside it, or a link on the way to the model (or the model folder
// itself being a link), is refused, and links inside the model are removed, never followed.
// A download of the same repository running meanwhile makes it fail with ErrBusy. Folders
// left empty above the model (the commit's, the repository's) are removed too; a path that
// is already gone is not an error.
func Delete(modelsDir, path string) error {
	if modelsDir == "" {
		return errors.New("no models folder: EdgeChat deletes only models in its models folder")
	}
	rel, err := relInside(modelsDir, path)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(modelsDir)
	if err != nil {
		return fmt.Errorf("cannot open the models folder %s: %w", modelsDir, err)
	}
	defer root.Close()
	if err := noLink(root, modelsDir, rel); err != nil {
		if le, ok := err.(*linkError); ok {
			return fmt.Errorf("%s is a link (to %s): EdgeChat deletes only real folders inside the models folder, never what a link leads to — remove the link yourself", le.path, le.target)
		}
		return err
	}
	if _, err := root.Lstat(rel); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	repo, _, nested := strings.Cut(filepath.ToSlash(rel), "/")
	lockName := filepath.Join(repo, ".lock")
	release := func() {}
	if nested { // <models>/ORG--NAME/<commit>/…: a download of ORG/NAME holds ORG--NAME/.lock
		if release, err = tryRepoLock(root, lockName); err != nil {
			return fmt.Errorf("cannot delete %s: %w", path, err)
		}
	}
	// Renamed first, so that a model whose files another program holds open (Windows refuses
	// then) stays whole, and one that cannot be removed completely is no longer listed (scans
	// skip names starting with a dot).
	trash := filepath.Join(filepath.Dir(rel), deletingPrefix+filepath.Base(rel))
	_ = root.RemoveAll(trash) // what an earlier Delete could not remove
	err = root.Rename(rel, trash)
	release()
	if err != nil {
		return fmt.Errorf("cannot delete %s: %w — close any program that uses it (another EdgeChat, a Python session) and check that you may change the models folder, then try again", path, err)
	}
	if err := root.RemoveAll(trash); err != nil { // links inside are removed as links
		return fmt.Errorf("could not delete all of %s (%w): what is left is in %s — delete it yourself", path, err, filepath.Join(modelsDir, trash))
	}
	// The folders above it, when nothing else is in them: a repository folder holding only
	// its lock file goes as well.
	for d := filepath.Dir(rel); d != "."; d = filepath.Dir(d) {
		if d == repo && onlyLock(root, repo) {
			_ = root.Remove(lockName)
		}
		if root.Remove(d) != nil {
			break
		}
	}
	return nil
}

// relInside returns path relative to dir, or an error when it is not below dir.
func relInside(dir, path string) (string, error) {
	absDir, err1 := filepath.Abs(dir)
	absPath, err2 := filepath.Abs(path)
	if err := errors.Join(err1, err2); err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, absPath)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is not inside the models folder %s: EdgeChat deletes only the models it keeps there", path, dir)
	}
	return rel, nil
}

// tryRepoLock takes the repository's download lock, if it has one, without waiting.
func tryRepoLock(root *os.Root, name string) (release func(), err error) {
	f, err := root.OpenFile(name, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, err
	}
	ok, err := tryLock(f)
	if err != nil || !ok {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%w — wait for it to finish or cancel it, then delete the model", ErrBusy)
		}
		return nil, err
	}
	return func() { unlock(f); f.Close() }, nil
}

// onlyLock reports whether the repository folder holds nothing but its lock file.
func onlyLock(root *os.Root, repo string) bool {
	f, err := root.Open(repo)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(3)
	return err == nil && len(names) == 1 && names[0] == ".lock"
}

// DiskSize is what Delete would free: the bytes of the regular files in the model folder
// path inside modelsDir, every variant included; links are not followed.
func DiskSize(modelsDir, path string) (int64, error) {
	rel, err := relInside(modelsDir, path)
	if err != nil {
		return 0, err
	}
	root, err := os.OpenRoot(modelsDir)
	if err != nil {
		return 0, fmt.Errorf("cannot open the models folder %s: %w", modelsDir, err)
	}
	defer root.Close()
	var n int64
	err = fs.WalkDir(root.FS(), filepath.ToSlash(rel), func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("cannot measure %s: %w", path, err)
	}
	return n, nil
}
