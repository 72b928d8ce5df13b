package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustOpen(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return s
}

// sample returns a conversation with n user/assistant pairs.
func sample(title string, n int) *Conversation {
	c := NewConversation(title)
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range n {
		c.Messages = append(c.Messages,
			Message{ID: fmt.Sprintf("u%d", i), Role: RoleUser, Content: fmt.Sprintf("Question %d about %s?", i, title), Created: at},
			Message{ID: fmt.Sprintf("a%d", i), Role: RoleAssistant, Content: fmt.Sprintf("Answer %d: it depends.\nSecond line with \"quotes\".", i),
				Thinking: "Let me think.", Created: at,
				Stats: &Stats{Backend: "npu", Device: "QNN HTP", FinishReason: "stop", PromptTokens: 30, Tokens: 12, TTFTMillis: 85.5, TokensPerSec: 21.3}})
	}
	return c
}

func mustSave(t testing.TB, s *Store, c *Conversation) {
	t.Helper()
	if err := s.Save(c); err != nil {
		t.Fatal(err)
	}
}

func fileNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	c := sample("Rust vs Go", 3)
	mustSave(t, s, c)

	for _, st := range []*Store{s, mustOpen(t, dir)} { // same store and a fresh one
		got, err := st.Load(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c, got); diff != "" {
			t.Errorf("Load (-want +got):\n%s", diff)
		}
		want := []Summary{{ID: c.ID, Title: "Rust vs Go", Updated: c.Updated, Messages: 6}}
		if diff := cmp.Diff(want, st.List()); diff != "" {
			t.Errorf("List (-want +got):\n%s", diff)
		}
	}
	if diff := cmp.Diff([]string{c.ID + ".json"}, fileNames(t, dir)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestSaveFillsIDTitleAndListOrder(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	older := &Conversation{Messages: []Message{{Role: RoleUser, Content: "\n  How do I bake bread without yeast? I have flour, water and salt only.\nThanks"}}}
	mustSave(t, s, older)
	if !validID(older.ID) || older.Created.IsZero() {
		t.Errorf("Save left ID %q Created %v", older.ID, older.Created)
	}
	if want := "How do I bake bread without yeast? I have flour, water and…"; older.Title != want {
		t.Errorf("Title = %q, want %q", older.Title, want)
	}
	newer := NewConversation("")
	mustSave(t, s, newer)
	if newer.Title != "New conversation" {
		t.Errorf("Title = %q", newer.Title)
	}
	var ids []string
	for _, sum := range s.List() {
		ids = append(ids, sum.ID)
	}
	if diff := cmp.Diff([]string{newer.ID, older.ID}, ids); diff != "" {
		t.Errorf("List order, newest first (-want +got):\n%s", diff)
	}
}

func TestNewIDSortsByTime(t *testing.T) {
	a := NewID()
	time.Sleep(2 * time.Millisecond)
	b := NewID()
	if !(a < b) || len(a) != 28 || !validID(a) {
		t.Errorf("NewID: %q then %q; want 28 hex digits, increasing", a, b)
	}
}

func TestInvalidIDRejected(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	for _, id := range []string{"../etc/passwd", "a/b", "", "x.json", `a\b`, "C:x", "CON", "nul", "com1", "LPT9", "a.", strings.Repeat("a", 65)} {
		if _, err := s.Load(id); err == nil || !strings.Contains(err.Error(), "invalid conversation id") {
			t.Errorf("Load(%q) = %v, want invalid id error", id, err)
		}
	}
	for _, id := range []string{"../up", "NUL", "aux"} {
		if err := s.Save(&Conversation{ID: id}); err == nil {
			t.Errorf("Save with id %q succeeded", id)
		}
		if err := s.Delete(id); err == nil {
			t.Errorf("Delete(%q) succeeded", id)
		}
	}
}

func TestFailedWriteKeepsPreviousVersion(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	c := sample("Keep me", 1)
	mustSave(t, s, c)
	saved := c.clone()

	c.Messages = append(c.Messages, Message{Role: RoleUser, Content: "lost in the crash"})
	crash := errors.New("simulated crash between fsync and rename")
	var tmpSeen string
	s.beforeRename = func(tmp string) error {
		tmpSeen = tmp
		data, err := os.ReadFile(tmp)
		if err != nil || !strings.Contains(string(data), "lost in the crash") {
			t.Errorf("temp file %s does not hold the new version (err %v)", tmp, err)
		}
		return crash
	}
	if err := s.Save(c); !errors.Is(err, crash) {
		t.Fatalf("Save = %v, want the simulated crash", err)
	}
	if filepath.Dir(tmpSeen) != dir {
		t.Errorf("temp file %s is not in the conversation folder", tmpSeen)
	}
	got, err := mustOpen(t, dir).Load(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(saved, got); diff != "" {
		t.Errorf("after failed save (-want +got):\n%s", diff)
	}
}

func TestInterruptedSaveOnReopen(t *testing.T) {
	t.Run("half-written temp is discarded", func(t *testing.T) {
		dir := t.TempDir()
		s := mustOpen(t, dir)
		c := sample("Previous", 2)
		mustSave(t, s, c)
		full, _ := encode(sample("Newer", 5))
		tmp := filepath.Join(dir, "."+c.ID+".json.tmp-123")
		os.WriteFile(tmp, full[:len(full)/2], 0o600) // killed mid-write

		s2 := mustOpen(t, dir)
		got, err := s2.Load(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c, got); diff != "" {
			t.Errorf("previous version (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{c.ID + ".json"}, fileNames(t, dir)); diff != "" {
			t.Errorf("files (-want +got):\n%s", diff)
		}
	})
	t.Run("whole newer temp is completed", func(t *testing.T) {
		dir := t.TempDir()
		s := mustOpen(t, dir)
		c := sample("Previous", 2)
		mustSave(t, s, c)
		newer := c.clone()
		newer.Messages = append(newer.Messages, Message{Role: RoleUser, Content: "written, fsynced, not renamed"})
		newer.Updated = c.Updated.Add(time.Second)
		data, _ := encode(newer)
		os.WriteFile(filepath.Join(dir, "."+c.ID+".json.tmp-456"), data, 0o600) // killed before rename

		s2 := mustOpen(t, dir)
		got, err := s2.Load(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(newer, got); diff != "" {
			t.Errorf("recovered version (-want +got):\n%s", diff)
		}
		if len(s2.Problems()) != 1 || !strings.Contains(s2.Problems()[0], "recovered") {
			t.Errorf("Problems() = %q, want one recovery note", s2.Problems())
		}
	})
	t.Run("broken temp with no saved version is kept", func(t *testing.T) {
		dir := t.TempDir()
		id := NewID()
		os.WriteFile(filepath.Join(dir, "."+id+".json.tmp-789"), []byte(`{"version":1,"id":"`+id+`","title":"first rep`), 0o600)
		s := mustOpen(t, dir)
		if len(s.List()) != 0 || len(s.Problems()) != 1 {
			t.Errorf("List %v Problems %q", s.List(), s.Problems())
		}
		if _, err := os.Stat(filepath.Join(dir, "."+id+".json.tmp-789.corrupt")); err != nil {
			t.Errorf("broken temp not kept as .corrupt: %v", err)
		}
	})
}

func TestCorruptFilesMovedAside(t *testing.T) {
	good := sample("Good", 1)
	goodData, _ := encode(good)
	tests := []struct {
		name    string
		content func(id string) string
		problem string
	}{
		{"not json", func(string) string { return "hello, world\n" }, "not a conversation file"},
		{"empty", func(string) string { return "" }, "the file is empty"},
		{"truncated", func(id string) string {
			data, _ := encode(&Conversation{ID: id, Title: "Cut", Messages: sample("x", 3).Messages})
			return string(data[:len(data)-40])
		}, "cut short"},
		{"hand edited, broken", func(id string) string { return `{"id": "` + id + `", "messages": [}` }, "not valid JSON"},
		{"binary", func(string) string { return "PK\x03\x04\x00\x00}" }, "not valid JSON"},
		{"wrong id", func(string) string { return string(goodData) }, "it says it holds conversation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := mustOpen(t, dir)
			other := sample("Survivor", 2)
			mustSave(t, s, other)
			id := NewID()
			bad := filepath.Join(dir, id+".json")
			os.WriteFile(bad, []byte(tt.content(id)), 0o600)
			os.WriteFile(bad+".corrupt", []byte("an earlier damaged file"), 0o600)

			s2 := mustOpen(t, dir)
			if diff := cmp.Diff([]Summary{{ID: other.ID, Title: "Survivor", Updated: other.Updated, Messages: 4}}, s2.List()); diff != "" {
				t.Errorf("List (-want +got):\n%s", diff)
			}
			moved := bad + ".corrupt.1" // .corrupt was taken: never overwrite it
			if data, err := os.ReadFile(moved); err != nil || string(data) != tt.content(id) {
				t.Errorf("moved file %s: err %v, bytes preserved %v", moved, err, string(data) == tt.content(id))
			}
			if data, _ := os.ReadFile(bad + ".corrupt"); string(data) != "an earlier damaged file" {
				t.Errorf("earlier .corrupt file was overwritten")
			}
			p := s2.Problems()
			if len(p) != 1 || !strings.Contains(p[0], moved) || !strings.Contains(p[0], tt.problem) {
				t.Errorf("Problems() = %q, want one naming %s and %q", p, moved, tt.problem)
			}
		})
	}
}

func TestLoadDamagedAfterOpen(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	c := sample("Will break", 1)
	mustSave(t, s, c)
	os.WriteFile(s.path(c.ID), []byte(`{"version":1,"id":"`+c.ID+`","title":"Will break","message_count":1,"messages":[{"id":}]}`+"\n"), 0o600)
	_, err := s.Load(c.ID)
	if err == nil || !strings.Contains(err.Error(), ".corrupt") {
		t.Fatalf("Load = %v, want an error naming the moved file", err)
	}
	if len(s.List()) != 0 || len(s.Problems()) != 1 {
		t.Errorf("List %v Problems %q", s.List(), s.Problems())
	}
	if _, err := s.Load("0123abcd"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Load(missing) = %v, want ErrNotFound", err)
	}
}

func TestDeleteRestore(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	c := sample("Oops", 2)
	mustSave(t, s, c)
	if err := s.Delete(c.ID); err != nil {
		t.Fatal(err)
	}
	if len(s.List()) != 0 || len(mustOpen(t, dir).List()) != 0 {
		t.Error("deleted conversation still listed")
	}
	if _, err := os.Stat(filepath.Join(dir, "trash", c.ID+".json")); err != nil {
		t.Errorf("not in trash: %v", err)
	}
	if err := s.Delete(c.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete = %v, want ErrNotFound", err)
	}
	if err := s.Restore(c.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got); diff != "" {
		t.Errorf("restored (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Summary{summaryOf(c)}, s.List()); diff != "" {
		t.Errorf("List after restore (-want +got):\n%s", diff)
	}
	if err := s.Restore(c.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Restore = %v, want ErrNotFound", err)
	}
	// Deleting twice keeps both deleted copies.
	s.Delete(c.ID)
	mustSave(t, s, c)
	s.Delete(c.ID)
	if n := len(fileNames(t, filepath.Join(dir, "trash"))); n != 2 {
		t.Errorf("trash holds %d files, want 2", n)
	}
}

func TestSearch(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	bread := NewConversation("Baking")
	bread.Messages = []Message{{Role: RoleUser, Content: "How long should SOURDOUGH rise?"}, {Role: RoleAssistant, Content: "Overnight in the fridge.", Thinking: "proofing times"}}
	mustSave(t, s, bread)
	code := NewConversation("Go generics")
	code.Messages = []Message{{Role: RoleUser, Content: "Explain type parameters"}}
	mustSave(t, s, code)

	for _, st := range []*Store{s, mustOpen(t, dir)} { // warm cache, and cold (reads bodies once)
		tests := []struct {
			q    string
			want []string
		}{
			{"sourdough", []string{bread.ID}},
			{"FRIDGE overnight", []string{bread.ID}},
			{"proofing", []string{bread.ID}},
			{"generics", []string{code.ID}},
			{"e", []string{code.ID, bread.ID}},
			{"", []string{code.ID, bread.ID}},
			{"sourdough generics", nil},
			{"nothing like this", nil},
		}
		for _, tt := range tests {
			var got []string
			for _, sum := range st.Search(tt.q) {
				got = append(got, sum.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Search(%q) (-want +got):\n%s", tt.q, diff)
			}
		}
	}
	// Saved changes are searchable without rereading files.
	code.Messages = append(code.Messages, Message{Role: RoleAssistant, Content: "Constraints like comparable."})
	mustSave(t, s, code)
	if got := s.Search("comparable"); len(got) != 1 || got[0].ID != code.ID {
		t.Errorf("Search after Save = %v", got)
	}
}
