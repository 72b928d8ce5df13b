package documents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/history"
	"edgechat/internal/safepath"
)

var nameCases = map[string]string{
	"notes.txt":            "notes.txt",
	"a:b.txt":              "a_b.txt",
	`..\..\evil.txt`:       "_.._.._evil.txt",
	".hidden.md":           "_.hidden.md",
	"..":                   "_._",
	"CON":                  "_CON",
	"nul.txt":              "_nul.txt",
	"com1.md":              "_com1.md",
	"report.":              "report_",
	"report ":              "report_",
	"tab\there.txt":        "tab_here.txt",
	"del\x7f.txt":          "del_.txt",
	"bad\xffutf8.txt":      "bad_utf8.txt",
	"file.txt:ads":         "file.txt_ads",
	"":                     "_",
	"Ünïcødé 東京 naïve.pdf": "Ünïcødé 東京 naïve.pdf",
}

func TestSafeName(t *testing.T) {
	for in, want := range nameCases {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("é", 300) + ".pdf"
	if got := safeName(long); len(got) > safepath.MaxName-7 || !strings.HasSuffix(got, ".pdf") || safepath.Name(got) != nil {
		t.Errorf("safeName of a %d-byte name = %q (%d bytes): want it cut, valid, keeping .pdf", len(long), got, len(got))
	}
}

// TestStoreHostileNames: a conversation id or a stored file name from a conversation file that
// was edited (or came from elsewhere) never leads out of the conversation's folder: Add
// refuses the id, Requests gives no path, Remove deletes nothing.
func TestStoreHostileNames(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	victim := filepath.Join(filepath.Dir(data), "victim.txt")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Store{Dir: data}
	src := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(src, []byte("alpha"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"../..", "../x", "CON", "a/b", ""} {
		if _, err := s.Add(id, src); err == nil || !strings.Contains(err.Error(), "invalid conversation id") {
			t.Errorf("Add(%q) = %v, want the id refused", id, err)
		}
	}
	a, err := s.Add("c1", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ id, file string }{
		{"..", "victim.txt"}, {"c1", ".."}, {"c1", "."}, {"c1", ""}, {"c1", "NUL"}, {"c1", "x:ads"}, {"../data/c1", a.File},
	} {
		bad := history.Attachment{Name: "x", File: tc.file}
		if r := s.Requests(tc.id, []history.Attachment{bad}); r[0].Path != "" || r[0].IndexPath != "" {
			t.Errorf("Requests(%q, %q) = %+v: want no path", tc.id, tc.file, r[0])
		}
		if err := s.Remove(tc.id, bad); err != nil {
			t.Errorf("Remove(%q, %q) = %v", tc.id, tc.file, err)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the file beside the data folder went: %v", err)
	}
	if r := s.Requests("c1", []history.Attachment{a}); r[0].Path != filepath.Join(data, "c1.files", "notes.txt") {
		t.Errorf("the real attachment: %+v", r[0])
	}
}

// TestStoreLinkedFolder: a conversation's folder that is a link out of the data folder is not
// written through.
func TestStoreLinkedFolder(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	outside := filepath.Join(t.TempDir(), "outside")
	for _, d := range []string{data, outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(data, "c1.files")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	src := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(src, []byte("alpha"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Store{Dir: data}).Add("c1", src); err == nil {
		t.Error("Add wrote through a link out of the data folder")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("the folder outside holds %v", entries)
	}
}

// TestStoreManyCopies: attaching the same name over and over ends with an error, not a hang.
func TestStoreManyCopies(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "c1.files")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= maxCopies; i++ {
		name := "a.txt"
		if i > 1 {
			name = fmt.Sprintf("a (%d).txt", i)
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(data)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, _, err := createFree(root, "c1.files", "a.txt"); err == nil || !strings.Contains(err.Error(), "1000 files named a.txt") {
		t.Errorf("copy %d of a.txt: %v, want a refusal", maxCopies+1, err)
	}
}

// FuzzSafeName: any name a person's file has becomes a name every system keeps as written,
// with room for " (1000)".
func FuzzSafeName(f *testing.F) {
	for in := range nameCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := safeName(name)
		ext := filepath.Ext(got)
		for _, n := range []string{got, strings.TrimSuffix(got, ext) + " (1000)" + ext} {
			if err := safepath.Name(n); err != nil {
				t.Fatalf("safeName(%q) = %q: %v", name, n, err)
			}
		}
	})
}
