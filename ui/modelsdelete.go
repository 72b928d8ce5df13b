package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"edgechat/config"
	"edgechat/models/discover"
	"edgechat/models/hub"
)

// Deleting a downloaded model from the Models view. Only models in EdgeChat's own models
// folders (config.Settings.ModelsFolders) can be deleted; the hub's Delete opens them through
// an os.Root and never follows a link out.

// folderOf returns the models folder that holds m when EdgeChat keeps it (it downloaded it,
// or a person put it there), else "".
func (vm *ModelsVM) folderOf(m discover.Model) string {
	if m.Source != discover.SourceEdgeChat {
		return ""
	}
	for _, dir := range vm.store.Settings().ModelsFolders() {
		if within(m.Path, dir) && filepath.Clean(m.Path) != filepath.Clean(dir) {
			return dir
		}
	}
	return ""
}

// CanDelete reports whether m is one of the models EdgeChat keeps, which the view offers to
// delete.
func (vm *ModelsVM) CanDelete(m discover.Model) bool { return vm.folderOf(m) != "" }

// Loaded says why the model at path is in use by the chat or the documents, or "": it is the
// NPU's or the CPU's model in the settings (the engine loads those for replies) or the
// embedding model that ranks attached documents.
func Loaded(s config.Settings, path string) string {
	switch {
	case s.NPU.Model != "" && overlaps(s.NPU.Model, path):
		return "it is the NPU's model, loaded for replies"
	case s.CPU.Model != "" && overlaps(s.CPU.Model, path):
		return "it is the CPU's model, loaded for replies"
	case s.EmbeddingModel != "" && s.EmbeddingModel != config.EmbeddingOff && overlaps(s.EmbeddingModel, path):
		return "it is the embedding model that ranks attached documents"
	case s.RerankerModel != "" && s.RerankerModel != config.EmbeddingOff && overlaps(s.RerankerModel, path):
		return "it is the reranker that re-orders attached documents' passages"
	}
	return ""
}

// InUse says why m cannot be deleted now, or "": it is loaded (see Loaded), or a download
// into its repository's folder is running.
func (vm *ModelsVM) InUse(m discover.Model) string {
	if why := Loaded(vm.store.Settings(), m.Path); why != "" {
		return why + " — choose another model first"
	}
	for _, d := range vm.Downloads() {
		repo, _, err := hub.ParseRef(d.req.Ref)
		if err == nil && d.State() == StateRunning && within(m.Path, hub.RepoDir(d.req.ModelsDir, repo)) {
			return "a download of it is running — wait for it to finish or cancel it first"
		}
	}
	return ""
}

// AskDelete checks that m can be deleted and measures it on disk, off the main goroutine;
// then it calls confirm (on that goroutine) with the question to ask, or sets Error to why
// not. The channel closes when it is done.
func (vm *ModelsVM) AskDelete(m discover.Model, confirm func(question string)) <-chan struct{} {
	done := make(chan struct{})
	dir, err := vm.checkDelete(m)
	if err != nil {
		_ = vm.Error.Set(err.Error())
		close(done)
		return done
	}
	_ = vm.Error.Set("")
	vm.scans.Add(1)
	go func() {
		defer vm.scans.Done()
		defer close(done)
		size, err := vm.lib.DiskSize(dir, m.Path)
		if err != nil {
			_ = vm.Error.Set(err.Error())
			return
		}
		confirm(deleteQuestion(m, size))
	}()
	return done
}

// deleteQuestion is "Delete Qwen3-0.6B-ONNX (1.20 GB)?" with the folder it removes.
func deleteQuestion(m discover.Model, size int64) string {
	name := m.Name
	if _, short, ok := strings.Cut(name, "/"); ok {
		name = short
	}
	return fmt.Sprintf("Delete %s (%s)?\n\nIts files are removed from this PC:\n%s\n\nYou can download it again later.", name, hub.Bytes(size), m.Path)
}

// checkDelete returns m's models folder, or why m cannot be deleted now.
func (vm *ModelsVM) checkDelete(m discover.Model) (string, error) {
	dir := vm.folderOf(m)
	if dir == "" {
		return "", fmt.Errorf("%s is not in EdgeChat's models folder: EdgeChat deletes only the models it keeps (%s)", m.Name, m.Path)
	}
	if why := vm.InUse(m); why != "" {
		return "", fmt.Errorf("%s cannot be deleted: %s", m.Name, why)
	}
	return dir, nil
}

// Delete deletes the downloaded model m off the main goroutine, checking again that it is
// not in use, and takes it off the list. The channel receives the outcome (nil, or the error
// also shown in Error) once the list shows it.
func (vm *ModelsVM) Delete(m discover.Model) <-chan error {
	out := make(chan error, 1)
	dir, err := vm.checkDelete(m)
	if err != nil {
		_ = vm.Error.Set(err.Error())
		out <- err
		return out
	}
	_ = vm.Error.Set("")
	_ = vm.Status.Set("Deleting " + m.Name + "…")
	vm.scans.Add(1)
	go func() {
		defer vm.scans.Done()
		size, _ := vm.lib.DiskSize(dir, m.Path)
		if err := vm.lib.Delete(dir, m.Path); err != nil {
			if errors.Is(err, hub.ErrBusy) {
				err = fmt.Errorf("%s cannot be deleted: %w", m.Name, err)
			}
			_ = vm.Error.Set(err.Error())
			_ = vm.Status.Set("")
			if _, serr := os.Stat(m.Path); errors.Is(serr, fs.ErrNotExist) {
				vm.drop(m.Path) // partly deleted: no longer a model to use
			}
			out <- err
			return
		}
		_ = vm.Status.Set(fmt.Sprintf("Deleted %s (%s freed).", m.Name, hub.Bytes(size)))
		vm.drop(m.Path)
		out <- nil
	}()
	return out
}

// drop takes the model at path off the list.
func (vm *ModelsVM) drop(path string) {
	vm.mu.Lock()
	vm.found = slices.DeleteFunc(slices.Clone(vm.found), func(x discover.Model) bool { return x.Path == path })
	vm.mu.Unlock()
	vm.changed()
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// overlaps reports whether one of a and b lies within the other (a route may name the model
// folder, a file in it, or a folder above a variant).
func overlaps(a, b string) bool { return within(a, b) || within(b, a) }
