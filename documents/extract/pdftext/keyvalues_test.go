package pdftext

import (
	"bytes"
	"testing"
)

// TestKeyWithoutValue: a catalog with a key and no value ("<< /Pages 2 0 R /Catalog >>",
// format-corpus's T02-01_005) was refused ("unexpected non-name key"); with the key given
// null it reads as pdftotext reads it. A key that is no name stays a fault.
func TestKeyWithoutValue(t *testing.T) {
	data := onePagePDF("Hello PDF-world!", "")
	// the same length, so the offsets stay right
	catalog := []byte("<< /Type /Catalog /Pages 2 0 R >>")
	readsAs(t, "a key without value", bytes.Replace(data, catalog, []byte("<< /Pages 2 0 R /Catalog       >>"), 1), "Hello PDF-world!")
	if _, err := pagesText(t, bytes.Replace(data, catalog, []byte("<< 5 /Type /Catalog /Pages 2 0 R>>"), 1)); err == nil {
		t.Error("a key that is a number: read, want an error")
	}
}

func TestWithKeyValues(t *testing.T) {
	checkRepair(t, "withKeyValues", withKeyValues, []repairCase{
		{"1 0 obj\n<< /Pages 1 0 R /Catalog >>\nendobj\n", "1 0 obj\n<< /Pages 1 0 R /Catalog  null >>\nendobj\n"},
		{"1 0 obj << /Type /Catalog /Pages 1 0 R >> endobj", "1 0 obj << /Type /Catalog /Pages 1 0 R >> endobj"},
		{"1 0 obj << /A << /B >> /C [1 2 <<>>] /D (x>>) /E <41> /F 1 /G>> endobj", "1 0 obj << /A << /B  null >> /C [1 2 <<>>] /D (x>>) /E <41> /F 1 /G null >> endobj"},
		{"1 0 obj << 5 /A >> endobj 2 0 obj << /B >> endobj", "1 0 obj << 5 /A >> endobj 2 0 obj << /B  null >> endobj"},
		{"1 0 obj [/A >>] endobj 2 0 obj << /A", "1 0 obj [/A >>] endobj 2 0 obj << /A"},
	})
}

// FuzzKeyValues: withKeyValues only puts " null " in, and a file so changed reads without
// panicking.
func FuzzKeyValues(f *testing.F) {
	f.Add([]byte("1 0 obj\n<< /Pages 1 0 R /Catalog >>\nendobj\n"))
	f.Add([]byte("1 0 obj << /A << /B << /C >> >> /D [<< /E >>] >> endobj"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRepair(t, data, withKeyValues, without(" null "))
	})
}
