package extract

import (
	"context"
	"errors"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// A file cut short (a download that did not finish) says so and advises fetching it again;
// other damage keeps its own words and advice; whole files and files cut only in their
// trailing bytes are read.
func TestCutOff(t *testing.T) {
	pdf := testdocs.PDF([]string{"The quarterly report of the water board.", "Page two of it."})
	docx := testdocs.DOCX([]testdocs.Para{{Text: "The minutes of the meeting."}})
	garbled := []byte("%PDF-1.4\n" + strings.Repeat("#", 500) + "\nstartxref\n9\n%%EOF\n") // whole, but no objects
	for _, c := range []struct {
		name   string
		data   []byte
		cutOff bool // else read, or refused as damaged
		read   bool
	}{
		{"report.pdf", pdf, false, true},
		{"report.pdf", pdf[:len(pdf)/2], true, false},
		{"report.pdf", pdf[:len(pdf)-7], false, true}, // all but "%%EOF\n": every object is there
		{"report.pdf", garbled, false, false},
		{"minutes.docx", docx, false, true},
		{"minutes.docx", docx[:len(docx)*2/3], true, false},
		{"minutes.docx", docx[:len(docx)-10], true, false}, // the directory's end record cut
		{"minutes.docx", []byte("<html>not a zip at all</html>"), false, false},
	} {
		doc, err := Bytes(context.Background(), c.name, c.data, nil)
		switch {
		case c.read:
			if err != nil || len(doc.Sections) == 0 {
				t.Errorf("%s of %d bytes: %v, want it read", c.name, len(c.data), err)
			}
			continue
		case err == nil:
			t.Errorf("%s of %d bytes read, want an error", c.name, len(c.data))
			continue
		}
		msg := err.Error()
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s of %d bytes: %v, want ErrCorrupt", c.name, len(c.data), err)
		}
		if got := strings.Contains(msg, "its end is cut off") && strings.Contains(msg, "download or copy it again"); got != c.cutOff {
			t.Errorf("%s of %d bytes: %q; cut off %v, want %v", c.name, len(c.data), msg, got, c.cutOff)
		}
		if !c.cutOff && !strings.Contains(msg, "open it in its program and save it again") {
			t.Errorf("%s of %d bytes: %q, want the advice for damage", c.name, len(c.data), msg)
		}
	}
}
