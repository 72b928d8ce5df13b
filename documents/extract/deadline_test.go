package extract

import (
	"context"
	"errors"
	"testing"
	"time"

	"edgechat/internal/testkit/testdocs"
)

// TestDeadline: a file still being read at its deadline is refused as too slow, on every
// path (a PDF's pages, HTML tokens).
func TestDeadline(t *testing.T) {
	for name, read := range map[string]func(b *budget) error{
		"pdf": func(b *budget) error {
			_, err := readPDF(b, testdocs.LongPDF(40, 0), nil)
			return err
		},
		"html": func(b *budget) error {
			_, err := readHTML(b, testdocs.NestedHTML(100_000))
			return err
		},
	} {
		b := newBudgetUntil(context.Background(), time.Now().Add(-time.Second))
		err := read(b)
		b.stop()
		if !errors.Is(err, ErrTooSlow) {
			t.Errorf("%s: %v, want ErrTooSlow", name, err)
		}
	}
}

// FuzzTidy: text tidy already is returned as it is, and tidying is idempotent.
func FuzzTidy(f *testing.F) {
	for _, s := range []string{"a\nb", "a \nb", "a\n\n\nb", " a", "a\r\nb", "a\n \nb", "a\u00a0b", "x\n\ny"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := tidyText(s)
		if twice := tidyText(once); twice != once {
			t.Errorf("tidy(%q) = %q, again %q", s, once, twice)
		}
		if isTidy(s) && once != s {
			t.Errorf("isTidy(%q) but tidy gives %q", s, once)
		}
	})
}
