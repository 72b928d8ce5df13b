package history

import (
	"testing"
)

// BenchmarkOpen500 opens a folder of 500 conversations of 20 messages and lists them: the
// start-up cost of the conversation sidebar.
func BenchmarkOpen500(b *testing.B) {
	dir := b.TempDir()
	s := mustOpen(b, dir)
	for range 500 {
		mustSave(b, s, sample("A conversation about something", 10))
	}
	for b.Loop() {
		s, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(s.List()); n != 500 {
			b.Fatalf("List has %d, want 500", n)
		}
	}
}

// BenchmarkSearch500 is one keystroke in the search box over 500 conversations, after the first
// search has read the bodies.
func BenchmarkSearch500(b *testing.B) {
	dir := b.TempDir()
	s := mustOpen(b, dir)
	for range 500 {
		mustSave(b, s, sample("A conversation about something", 10))
	}
	s = mustOpen(b, dir)
	s.Search("warm up")
	for b.Loop() {
		s.Search("answer 7 depends")
	}
}
