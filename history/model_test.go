package history

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A conversation keeps its model and mode; a file written before they were kept still loads,
// with none (the window then goes on with the model in force).
func TestConversationModel(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	c := sample("base", 1)
	c.Model, c.Device, c.Mode = filepath.Join("models", "gpt2"), "cpu", ModeComplete
	mustSave(t, s, c)
	got, err := mustOpen(t, dir).Load(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([3]string{c.Model, c.Device, c.Mode}, [3]string{got.Model, got.Device, got.Mode}); diff != "" {
		t.Errorf("model after reload (-want +got):\n%s", diff)
	}

	old := `{"version":1,"id":"0190aaaaaaaa0000000000000000","title":"Old","created":"2026-01-02T03:04:05Z","updated":"2026-01-02T03:04:05Z","message_count":1,"messages":[{"id":"u","role":"user","content":"Hi","created":"2026-01-02T03:04:05Z"}]}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "0190aaaaaaaa0000000000000000.json"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := mustOpen(t, dir).Load("0190aaaaaaaa0000000000000000")
	if err != nil {
		t.Fatalf("a file without a model: %v", err)
	}
	if o.Model != "" || o.Device != "" || o.Mode != "" || len(o.Messages) != 1 || o.Messages[0].Content != "Hi" {
		t.Errorf("old file loaded as %+v", o)
	}
}
