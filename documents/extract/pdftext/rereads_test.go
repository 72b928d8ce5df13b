package pdftext

import (
	"bytes"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// onePagePDF is a one-page file drawing text in Helvetica, with extra written into its page
// object, for the syntax repairs' tests to damage.
func onePagePDF(text, extra string) []byte {
	return testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R "+extra+"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
		testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td ("+text+") Tj ET")),
		[]byte(simpleFont("")),
	)
}

// repairCase is a repair's input and the copy it should make.
type repairCase struct{ in, want string }

// checkRepair runs a syntax repair over its table: each copy as wanted, and changed said
// exactly when the copy differs.
func checkRepair(t *testing.T, name string, fix func([]byte) ([]byte, bool), cases []repairCase) {
	t.Helper()
	for _, tt := range cases {
		got, changed := fix([]byte(tt.in))
		if string(got) != tt.want || changed != (tt.in != tt.want) {
			t.Errorf("%s(%q) = %q, %v, want %q", name, tt.in, got, changed, tt.want)
		}
	}
}

// fuzzRepair checks a syntax repair on fuzzed data: it says when it changed something,
// changes only what strip takes away from both sides, and the copy reads through the scan
// without panicking. It returns the copy.
func fuzzRepair(t *testing.T, data []byte, fix func([]byte) ([]byte, bool), strip func([]byte) []byte) []byte {
	t.Helper()
	got, changed := fix(data)
	if !changed && !bytes.Equal(got, data) {
		t.Fatal("changed without saying so")
	}
	if !bytes.Equal(strip(got), strip(data)) {
		t.Fatal("changed more than the repair's bytes")
	}
	if fixed, ok := rebuiltXref(got); ok {
		Read(fixed, Options{MaxPages: 10}) // must not panic or hang
	}
	return got
}

// without returns a strip for fuzzRepair that takes every run of cut out.
func without(cut ...string) func([]byte) []byte {
	return func(b []byte) []byte {
		for _, c := range cut {
			b = bytes.ReplaceAll(b, []byte(c), nil)
		}
		return b
	}
}
