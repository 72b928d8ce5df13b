package hub

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeModel writes a small model folder's files into dir.
// symlinkOrSkip makes the link name → target, or skips the test where the system makes none:
// no symlinks allowed, or Wine 10, whose CreateSymbolicLinkW reports success and makes
// nothing.
func symlinkOrSkip(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if _, err := os.Lstat(name); err != nil {
		t.Skipf("os.Symlink succeeded but made no link (Wine): %v", err)
	}
}

func fakeModel(t *testing.T, dir string) {
	t.Helper()
	for name, data := range map[string]string{"config.json": "{}", "tokenizer.json": "{}", "onnx/model.onnx": "\x08\x07graph"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func TestDelete(t *testing.T) {
	const other = "fedcba9876543210fedcba9876543210fedcba98"
	tests := []struct {
		name string
		// setup builds the models folder and returns the path to delete.
		setup func(t *testing.T, models string) string
		// gone and kept are paths (relative to the models folder) after Delete.
		gone, kept []string
	}{
		{"the model and its empty folders", func(t *testing.T, models string) string {
			p := filepath.Join(models, "test-org--Tiny-ONNX", testCommit)
			fakeModel(t, p)
			if err := os.WriteFile(filepath.Join(models, "test-org--Tiny-ONNX", ".lock"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, []string{"test-org--Tiny-ONNX"}, []string{"."}},
		{"another commit stays", func(t *testing.T, models string) string {
			fakeModel(t, filepath.Join(models, "test-org--Tiny-ONNX", other))
			p := filepath.Join(models, "test-org--Tiny-ONNX", testCommit)
			fakeModel(t, p)
			return p
		}, []string{"test-org--Tiny-ONNX/" + testCommit}, []string{"test-org--Tiny-ONNX/" + other + "/onnx/model.onnx"}},
		{"a variant's sub-folder", func(t *testing.T, models string) string {
			base := filepath.Join(models, "org--Genai", testCommit)
			fakeModel(t, filepath.Join(base, "cpu-int4"))
			fakeModel(t, filepath.Join(base, "npu"))
			return filepath.Join(base, "cpu-int4")
		}, []string{"org--Genai/" + testCommit + "/cpu-int4"}, []string{"org--Genai/" + testCommit + "/npu/tokenizer.json"}},
		{"a folder copied in by hand", func(t *testing.T, models string) string {
			p := filepath.Join(models, "my-model")
			fakeModel(t, p)
			return p
		}, []string{"my-model"}, []string{"."}},
		{"what an earlier delete left", func(t *testing.T, models string) string {
			p := filepath.Join(models, "org--Again", testCommit)
			fakeModel(t, p)
			fakeModel(t, filepath.Join(models, "org--Again", deletingPrefix+testCommit))
			return p
		}, []string{"org--Again"}, []string{"."}},
		{"already gone", func(t *testing.T, models string) string {
			return filepath.Join(models, "org--Gone", testCommit)
		}, nil, []string{"."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			models := t.TempDir()
			p := tt.setup(t, models)
			if err := Delete(models, p); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			for _, g := range tt.gone {
				if exists(filepath.Join(models, filepath.FromSlash(g))) {
					t.Errorf("%s is still there", g)
				}
			}
			for _, k := range tt.kept {
				if !exists(filepath.Join(models, filepath.FromSlash(k))) {
					t.Errorf("%s was deleted", k)
				}
			}
			_ = filepath.WalkDir(models, func(p string, d os.DirEntry, err error) error {
				if err == nil && strings.HasPrefix(d.Name(), deletingPrefix) {
					t.Errorf("%s was left behind", p)
				}
				return nil
			})
		})
	}
}

// A download of the model running (it holds the repository's lock) refuses the delete.
func TestDeleteRefusedWhileDownloading(t *testing.T) {
	models := t.TempDir()
	p := filepath.Join(models, "test-org--Tiny-ONNX", testCommit)
	fakeModel(t, p)
	d, err := openRepoDir(models, testRepo)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	unlockRepo, err := d.lock(context.Background(), time.Millisecond, func() {})
	if err != nil {
		t.Fatal(err)
	}
	err = Delete(models, p)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "cancel it") {
		t.Errorf("Delete during a download = %v, want ErrBusy saying what to do", err)
	}
	if !exists(filepath.Join(p, "onnx", "model.onnx")) {
		t.Error("the model was deleted while a download held its lock")
	}
	unlockRepo()
	if err := Delete(models, p); err != nil || exists(p) {
		t.Errorf("Delete after the download ended = %v (still there: %v)", err, exists(p))
	}
}

// Nothing outside the models folder is deleted: not a path outside it, not the folder
// itself, not what a link leads to.
func TestDeleteStaysInside(t *testing.T) {
	outside := t.TempDir()
	fakeModel(t, filepath.Join(outside, "precious"))
	precious := filepath.Join(outside, "precious", "onnx", "model.onnx")
	link := func(t *testing.T, target, name string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		symlinkOrSkip(t, target, name)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, models string) string
		want  string // part of the error; "" = deleted
	}{
		{"a path outside", func(t *testing.T, models string) string { return filepath.Join(outside, "precious") }, "is not inside the models folder"},
		{"dot-dot out", func(t *testing.T, models string) string {
			return models + "/../" + filepath.Base(outside) + "/precious"
		}, "is not inside the models folder"},
		{"the models folder itself", func(t *testing.T, models string) string { return models }, "is not inside the models folder"},
		{"the repository folder is a link out", func(t *testing.T, models string) string {
			link(t, outside, filepath.Join(models, "org--Linked"))
			return filepath.Join(models, "org--Linked", "precious")
		}, "EdgeChat deletes only real folders"},
		{"the model folder is a link out", func(t *testing.T, models string) string {
			link(t, filepath.Join(outside, "precious"), filepath.Join(models, "org--Linked", testCommit))
			return filepath.Join(models, "org--Linked", testCommit)
		}, "EdgeChat deletes only real folders"},
		{"a link inside the model is removed, not followed", func(t *testing.T, models string) string {
			p := filepath.Join(models, "org--Model", testCommit)
			fakeModel(t, p)
			link(t, filepath.Join(outside, "precious"), filepath.Join(p, "onnx", "more"))
			link(t, precious, filepath.Join(p, "weights.onnx"))
			return p
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			models := filepath.Join(t.TempDir(), "models")
			if err := os.Mkdir(models, 0o755); err != nil {
				t.Fatal(err)
			}
			p := tt.setup(t, models)
			err := Delete(models, p)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Delete(%s) = %v", p, err)
			case tt.want == "" && exists(p):
				t.Errorf("%s is still there", p)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Delete(%s) = %v, want an error with %q", p, err, tt.want)
			}
			if !exists(precious) || !exists(filepath.Join(outside, "precious", "tokenizer.json")) {
				t.Fatal("a file outside the models folder was deleted")
			}
			if !exists(models) {
				t.Error("the models folder itself was deleted")
			}
		})
	}
}

// DiskSize counts every file of the folder (all variants), not what links lead to.
func TestDiskSize(t *testing.T) {
	models := t.TempDir()
	p := filepath.Join(models, "org--Model", testCommit)
	fakeModel(t, p)
	if err := os.WriteFile(filepath.Join(p, "onnx", "model_q4.onnx"), make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(outside, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	symlinkOrSkip(t, outside, filepath.Join(p, "onnx", "big.onnx"))
	want := int64(len("{}")*2 + len("\x08\x07graph") + 1000)
	if n, err := DiskSize(models, p); err != nil || n != want {
		t.Errorf("DiskSize = %d, %v; want %d", n, err, want)
	}
	if _, err := DiskSize(models, outside); err == nil {
		t.Error("DiskSize measured a path outside the models folder")
	}
}
