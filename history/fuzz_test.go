package history

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpenFile puts arbitrary bytes in a conversation file: Open must not fail, and the file
// is either listed and loadable or moved aside with a problem reported.
func FuzzOpenFile(f *testing.F) {
	data, _ := encode(sample("Seed", 2))
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(""))
	f.Add([]byte("hello\n"))
	f.Add([]byte(`{"id":"0123","messages":[]}`))
	f.Add([]byte(`{"version":1,"id":"0123","title":"t","message_count":1,"messages":[{"id":}]}` + "\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		dir := t.TempDir()
		const id = "0123"
		os.WriteFile(filepath.Join(dir, id+".json"), content, 0o600)
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		listed := len(s.List()) == 1
		if !listed && len(s.Problems()) != 1 {
			t.Fatalf("file neither listed nor reported: problems %q", s.Problems())
		}
		if listed {
			if _, err := s.Load(id); err != nil && len(s.Problems()) != 1 {
				t.Fatalf("Load failed (%v) without a problem report", err)
			}
		}
		s.Search("x")
	})
}
