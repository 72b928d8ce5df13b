package documents_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"edgechat/documents"
	"edgechat/internal/rss"
	"edgechat/internal/testkit/testdocs"
	"edgechat/reply"
)

// TestOneLineMarkdownMemory indexes a large Markdown file written on one line: reading,
// splitting, indexing and saving it must take private memory proportional to the text, at
// most 4× (it took ~45× once).
func TestOneLineMarkdownMemory(t *testing.T) {
	if !rss.PrivateSupported {
		t.Skip("private memory is read on Linux and Windows only")
	}
	size := 45_000_000
	if testing.Short() || raceEnabled {
		size = 4_000_000 // the race detector's shadow memory would be counted too
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "one-line.md")
	if err := os.WriteFile(path, testdocs.OneLineMarkdown(size), 0o600); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	debug.FreeOSMemory()
	before, err := rss.Private()
	if err != nil {
		t.Fatal(err)
	}
	stop := rss.SamplePrivate(5 * time.Millisecond)
	start := time.Now()
	lib := documents.NewLibrary()
	d, err := lib.Open(context.Background(), reply.Attachment{Name: "one-line.md", Path: path, IndexPath: path + ".idx"}, nil)
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	ratio := float64(peak-before) / float64(size)
	t.Logf("%d MB of text on one line: %d chunks in %v, private memory +%.0f MB (%.1f× the text)",
		size/1_000_000, len(d.Index.Chunks), time.Since(start).Round(time.Millisecond), float64(peak-before)/1e6, ratio)
	if !raceEnabled && ratio > 4 {
		t.Errorf("indexing took %.1f× the text in private memory, want at most 4×", ratio)
	}
}
