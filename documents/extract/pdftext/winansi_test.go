package pdftext

import "testing"

// WinAnsiEncoding draws a bullet at the codes Windows-1252 leaves unused, as the PDF
// reference says and renderers draw them (libharu's encoding_list.pdf: 72 bullets of its
// charts were left out).
func TestWinAnsiUnusedCodes(t *testing.T) {
	tests := []struct {
		name string
		code byte
		want string
	}{
		{"0x7F, after the tilde", 0x7F, "•"},
		{"0x81", 0x81, "•"},
		{"0x8D", 0x8D, "•"},
		{"0x8F", 0x8F, "•"},
		{"0x90", 0x90, "•"},
		{"0x9D", 0x9D, "•"},
		{"0x95, the bullet's own code", 0x95, "•"},
		{"0x80, the euro", 0x80, "€"},
		{"0x9E, z caron", 0x9E, "ž"},
		{"0xAD, the hyphen's second code", 0xAD, "-"},
		{"0x2D, the hyphen", 0x2D, "-"},
	}
	for _, tt := range tests {
		if got := baseEncoding("WinAnsiEncoding")[tt.code]; got != tt.want {
			t.Errorf("%s: WinAnsiEncoding[%#x] = %q, want %q", tt.name, tt.code, got, tt.want)
		}
	}
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
	readsAs(t, "a chart row of unused codes", pdfWith(font, "",
		"BT /F1 12 Tf 72 700 Td (8 \\200 \\201 \\202) Tj ET"),
		"8 € • ‚")
	readsAs(t, "a hyphen at 0xAD inside a line", pdfWith(font, "",
		"BT /F1 12 Tf 72 700 Td (e\255mail) Tj ET"),
		"e-mail")
	readsAs(t, "a word hyphenated at 0xAD across lines", pdfWith(font, "",
		"BT /F1 12 Tf 72 700 Td (the infor\\255) Tj 0 -14 Td (mation desk) Tj ET"),
		"the information desk")
	differences := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /BaseEncoding /WinAnsiEncoding /Differences [129 /.notdef] >> >>"
	readsAs(t, "a code the Differences take back", pdfWith(differences, "",
		"BT /F1 12 Tf 72 700 Td (9 \\201 \\235) Tj ET"),
		"9 •")
}
