package index_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/documents/extract"
	"edgechat/documents/index"
	"edgechat/internal/testkit/testdocs"
)

func TestSplit(t *testing.T) {
	para := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word+" ", n)) }
	tests := []struct {
		name          string
		text          string
		size, overlap int
		want          []string
	}{
		{"short", "one two", 100, 10, []string{"one two"}},
		{"empty", "  \n ", 100, 10, nil},
		{
			"paragraphs", para("aa", 10) + "\n\n" + para("bb", 10) + "\n\n" + para("cc", 10), 70, 0,
			[]string{para("aa", 10) + "\n\n" + para("bb", 10), para("cc", 10)},
		},
		{
			"overlap", para("aa", 10) + "\n\n" + para("bb", 10) + "\n\n" + para("cc", 10), 40, 9,
			[]string{para("aa", 10), "aa aa aa\n\n" + para("bb", 10), "bb bb bb\n\n" + para("cc", 10)},
		},
		{"long word", strings.Repeat("x", 25), 10, 0, []string{"xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range index.Split([]extract.Section{{Page: 3, Heading: "H", Text: tt.text}}, tt.size, tt.overlap) {
				if c.Page != 3 || c.Heading != "H" {
					t.Errorf("chunk lost its place: %+v", c)
				}
				got = append(got, c.Text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chunks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitKeepsEveryWord(t *testing.T) {
	text := testdocs.Filler(1, 20000)
	chunks := index.Split([]extract.Section{{Text: text}}, index.ChunkBytes, index.OverlapBytes)
	var all strings.Builder
	for _, c := range chunks {
		if len(c.Text) > index.ChunkBytes+1 {
			t.Errorf("chunk of %d bytes, more than %d", len(c.Text), index.ChunkBytes)
		}
		all.WriteString(c.Text + " ")
	}
	have := map[string]bool{}
	for _, w := range strings.Fields(all.String()) {
		have[w] = true
	}
	for _, w := range strings.Fields(text) {
		if !have[w] {
			t.Fatalf("word %q is in no chunk", w)
		}
	}
}

func needleIndex(t testing.TB, pages int) *index.Index {
	t.Helper()
	var secs []extract.Section
	for i, p := range testdocs.LongPages(pages, 250) {
		secs = append(secs, extract.Section{Page: i + 1, Text: p})
	}
	ix, err := index.Build(context.Background(), index.Split(secs, index.ChunkBytes, index.OverlapBytes), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestSearchFindsTheNeedle(t *testing.T) {
	ix := needleIndex(t, 300)
	for _, q := range []string{testdocs.NeedleQuestion, "halvorsen vault", "ACCESS CODES for the archives"} {
		hits := ix.Search(q, 3)
		if len(hits) == 0 {
			t.Fatalf("%q: no hits", q)
		}
		best := ix.Chunks[hits[0].Chunk]
		if best.Page != 250 || !strings.Contains(best.Text, "7341-QUARTZ") {
			t.Errorf("%q: best hit is page %d: %.80q", q, best.Page, best.Text)
		}
	}
	if hits := ix.Search("zebra xylophone", 3); len(hits) != 0 {
		t.Errorf("unrelated words found %d chunks", len(hits))
	}
}

func TestSaveLoad(t *testing.T) {
	ix := needleIndex(t, 260)
	ix.Unread = []int{3, 9}
	path := filepath.Join(t.TempDir(), "doc.idx")
	st := index.Stamp{Size: 10, ModTime: 20, Chunk: index.ChunkBytes}
	if err := ix.Save(path, st); err != nil {
		t.Fatal(err)
	}
	back, err := index.Load(path, st)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ix.Search(testdocs.NeedleQuestion, 5), back.Search(testdocs.NeedleQuestion, 5)); diff != "" {
		t.Errorf("hits after loading (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ix.Chunks, back.Chunks); diff != "" {
		t.Errorf("chunks after loading (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ix.Unread, back.Unread); diff != "" {
		t.Errorf("unread pages after loading (-want +got):\n%s", diff)
	}
	st.ModTime++
	if _, err := index.Load(path, st); !errors.Is(err, index.ErrStale) {
		t.Errorf("changed source: %v, want ErrStale", err)
	}
}

func TestBuildCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	chunks := index.Split([]extract.Section{{Text: testdocs.Filler(2, 100000)}}, 0, 0)
	if _, err := index.Build(ctx, chunks, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// thousandPages is the text of 1,000 pages of about 3 KB (≈ 3 MB).
func thousandPages() []extract.Section {
	secs := make([]extract.Section, 1000)
	for i, p := range testdocs.LongPages(1000, 250) {
		secs[i] = extract.Section{Page: i + 1, Text: p}
	}
	return secs
}

// BenchmarkBuild1000Pages chunks and indexes 1,000 pages (≈ 3 MB of text) and reports the
// heap the index keeps as a multiple of the text ("x-text").
func BenchmarkBuild1000Pages(b *testing.B) { benchBuild(b, thousandPages()) }

// benchBuild chunks and indexes secs in a b.Loop and reports the heap the index keeps over
// the text ("x-text").
func benchBuild(b *testing.B, secs []extract.Section) {
	n := 0
	for _, s := range secs {
		n += len(s.Text)
	}
	b.SetBytes(int64(n))
	var ix *index.Index
	var ratio float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var err error
		ix, err = index.Build(context.Background(), index.Split(secs, index.ChunkBytes, index.OverlapBytes), nil)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		ratio = float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
	}
	runtime.KeepAlive(ix)
	b.ReportMetric(ratio, "x-text")
}

func BenchmarkSearch1000Pages(b *testing.B) {
	ix, err := index.Build(context.Background(), index.Split(thousandPages(), index.ChunkBytes, index.OverlapBytes), nil)
	if err != nil {
		b.Fatal(err)
	}
	// Common words: each is in most chunks, the worst case for a posting-list walk.
	const q = "Which payment terms apply to the delivery of goods after termination of the agreement?"
	for b.Loop() {
		if hits := ix.Search(q, 8); len(hits) == 0 {
			b.Fatal("no hits")
		}
	}
}

func BenchmarkLoad1000Pages(b *testing.B) {
	ix, err := index.Build(context.Background(), index.Split(thousandPages(), index.ChunkBytes, index.OverlapBytes), nil)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "doc.idx")
	if err := ix.Save(path, index.Stamp{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := index.Load(path, index.Stamp{}); err != nil {
			b.Fatal(err)
		}
	}
}

// goSource is about 3 MB of the Go distribution's source: text with a large vocabulary
// (identifiers), unlike the generated pages.
func goSource(b *testing.B) []extract.Section {
	b.Helper()
	var secs []extract.Section
	n := 0
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("no Go toolchain to read source from: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || n >= 3<<20 {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n += len(data)
		secs = append(secs, extract.Section{Heading: p, Text: string(data)})
		return nil
	})
	if err != nil || n < 3<<20 {
		b.Skipf("Go's source is not readable here (%d bytes): %v", n, err)
	}
	return secs
}

// BenchmarkBuildGoSource indexes ~3 MB of Go source, reporting heap over text as
// BenchmarkBuild1000Pages does.
func BenchmarkBuildGoSource(b *testing.B) { benchBuild(b, goSource(b)) }
