package pdftext

import "testing"

// TestAddressBrokenAfterSlash: an address broken after its slashes with a hyphen drawn
// at each break (LinuxCNC's Integrator manual, dblatex's table cells) reads whole, and a
// line's "+/-" (plus or minus) and a slash's hyphen before a line that starts with no
// letter or digit stay as drawn.
func TestAddressBrokenAfterSlash(t *testing.T) {
	tests := []struct{ name, lines, want string }{
		{"an address in a cell, broken at three slashes",
			"(http://leadshineusa.com/-) Tj 0 -12 Td (UploadFile/-) Tj 0 -12 Td (Down/-) Tj 0 -12 Td (DM422m.pdf) Tj",
			"http://leadshineusa.com/UploadFile/Down/DM422m.pdf"},
		{"an address at the end of a line of words",
			"(the drivers are at http://www.example.com/-) Tj 0 -12 Td (support/drives.html for now.) Tj",
			"the drivers are at http://www.example.com/support/drives.html for now."},
		{"plus or minus at a line's end",
			"(a tolerance of five percent, +/-) Tj 0 -12 Td (5 mm at the most) Tj",
			"a tolerance of five percent, +/-\n5 mm at the most"},
		{"a slash's hyphen before an option",
			"(the options of cmd/-) Tj 0 -12 Td (--verbose and --quiet) Tj",
			"the options of cmd/-\n--verbose and --quiet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAs(t, tt.name, pdfWith(simpleFont(""), "", "BT /F1 10 Tf 72 700 Td "+tt.lines+" ET"), tt.want)
		})
	}
}
