package pdftext

import (
	"encoding/hex"
	"testing"
	"unicode/utf16"
)

// TestFieldValueOrder: a field's value without an appearance is drawn as a viewer shows it,
// right-to-left text right to left, and reads back as the value (pdfcpu's Hebrew form:
// a city chosen in a combo box, "ירושלים", read "םילשורי" when drawn in logical order).
func TestFieldValueOrder(t *testing.T) {
	for _, c := range []struct{ name, field, want string }{
		{"a combo box's Hebrew value", "/FT /Ch /Ff 131072 /V " + pdfTextString("ירושלים"), "ירושלים"},
		{"a text field's Hebrew words", "/FT /Tx /V " + pdfTextString("שם פרטי"), "שם פרטי"},
		{"Hebrew with a date", "/FT /Tx /V " + pdfTextString("תאריך 31/12/1999"), "תאריך 31/12/1999"},
		{"Arabic with a bracket", "/FT /Tx /V " + pdfTextString("سلا (بيت)"), "سلا (بيت)"},
		{"Hebrew with its points", "/FT /Tx /V " + pdfTextString("צְבִיָה"), "צְבִיָה"},
		{"Latin with a Hebrew word", "/FT /Tx /V " + pdfTextString("city: ירושלים now"), "city: ירושלים now"},
		{"a list box's Hebrew options", "/FT /Ch /Opt [" + pdfTextString("סן פרנסיסקו") + " " + pdfTextString("וינה") + "]", "סן פרנסיסקו\nוינה"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := pagesText(t, widgetPDF("/Rect [100 600 400 630] "+c.field))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// utf16Text is s as a PDF text string in UTF-16BE with its byte order mark.
func pdfTextString(s string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return "<FEFF" + hex.EncodeToString(b) + ">"
}
