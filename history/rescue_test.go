package history

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Rescue writes a conversation file that the store reads like any other.
func TestRescue(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	c := NewConversation("Kept")
	c.Messages = []Message{{Role: RoleUser, Content: "do not lose me"}}
	path, err := Rescue(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, RescueDir()) {
		t.Errorf("rescued to %s, outside %s", path, RescueDir())
	}
	got, err := mustOpen(t, RescueDir()).Load(c.ID)
	if err != nil || len(got.Messages) != 1 || got.Messages[0].Content != "do not lose me" {
		t.Fatalf("rescued file reads back as %+v, %v", got, err)
	}
}

// TestRescueBadID: a conversation whose ID cannot name a file is rescued under a new one,
// inside the rescue folder.
func TestRescueBadID(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, id := range []string{"../../escaped", "CON", ""} {
		c := &Conversation{ID: id, Title: "Kept", Messages: []Message{{Role: RoleUser, Content: "do not lose me"}}}
		path, err := Rescue(c)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(path) != RescueDir() || c.ID != id {
			t.Errorf("id %q rescued to %s (conversation id now %q): want a new file in %s, the conversation unchanged", id, path, c.ID, RescueDir())
		}
		got, err := mustOpen(t, RescueDir()).Load(strings.TrimSuffix(filepath.Base(path), ".json"))
		if err != nil || got.Messages[0].Content != "do not lose me" {
			t.Errorf("id %q: rescued file reads back as %+v, %v", id, got, err)
		}
	}
}

// A folder that takes no new files is reported at start. (Tests run as root, which ignores
// permission bits, so the folder is one no one can write to: /proc/self.)
func TestOpenReportsReadOnlyFolder(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses /proc")
	}
	s, err := Open("/proc/self")
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Problems(); len(p) != 1 || !strings.Contains(p[0], "/proc/self is not writable") {
		t.Errorf("Problems() = %q, want the folder reported as not writable", p)
	}
	if p := mustOpen(t, t.TempDir()).Problems(); len(p) != 0 {
		t.Errorf("a writable folder has problems: %q", p)
	}
}
