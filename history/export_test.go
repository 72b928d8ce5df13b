package history

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestExportMarkdown(t *testing.T) {
	at := time.Date(2026, 12, 2, 9, 30, 0, 0, time.UTC)
	c := &Conversation{ID: "x", Title: "Sourdough timing", Created: at, Updated: at, Messages: []Message{
		{Role: RoleSystem, Content: "You are a helpful baker."},
		{Role: RoleUser, Content: "How long should sourdough rise?\n\nMine is **flat**."},
		{Role: RoleAssistant, Thinking: "  The user asks about bulk fermentation.\nConsider temperature.  ",
			Content: "Usually 4–6 hours at 24 °C.\n\n- Check volume\n- Poke test", Stats: &Stats{Tokens: 20}},
		{Role: RoleUser, Content: "Thanks!"},
		{Role: RoleAssistant, Content: "You're welcome."},
	}}
	got := ExportMarkdown(c)
	golden := filepath.Join("testdata", "export.golden.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./history -run TestExportMarkdown -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("ExportMarkdown (-want +got):\n%s", diff)
	}
}
