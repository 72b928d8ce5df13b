package pdftext

import "testing"

// Fonts without widths take the standard fonts' by their names, a comma's style included.
func TestCoreFontNames(t *testing.T) {
	tests := []struct{ base, family, style string }{
		{"Helvetica-BoldOblique", "helvetica", "BI"},
		{"TimesNewRoman,Italic", "times", "I"},
		{"TimesNewRoman,BoldItalic", "times", "BI"},
		{"Arial,Bold", "helvetica", "B"},
		{"ArialMT", "helvetica", ""},
		{"CourierNewPS-BoldMT", "courier", "B"},
		{"Garamond,Bold", "", ""},
	}
	for _, tt := range tests {
		if family, style := coreFont(tt.base); family != tt.family || style != tt.style {
			t.Errorf("coreFont(%q) = %q, %q, want %q, %q", tt.base, family, style, tt.family, tt.style)
		}
	}
	// Unstructured's a1977-backus-p21.pdf, an OCR layer in TimesNewRoman,Italic without
	// widths, each word drawn with its space and placed by TD: guessed half an em wide, the
	// letters ran past the next word's start and "properties of" read "propertiesof".
	font := "<< /Type /Font /Subtype /TrueType /BaseFont /TimesNewRoman,Italic /Encoding /WinAnsiEncoding >>"
	readsAs(t, "words drawn one by one", pdfWith(font, "",
		"BT 1 0 0 1 72 700 Tm /F1 8.88 Tf 88 Tz 0.85 Tc (properties ) Tj 46.08 0 TD 0.96 Tc (of ) Tj 11.28 0 TD 0 Tc (the ) Tj ET"),
		"properties of the")
}
