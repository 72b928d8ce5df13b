package pdftext

import (
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// TestListBox: a list box without an appearance reads as the options its box shows: from
// its top index as many as fit (a 30-point box at 12 points: two), scrolled just far enough
// to show the first chosen option when it has no top index and that option is below the
// box. Only the chosen value was read before (pdfium's listbox_form.pdf), never the
// options the page shows. A combo box and a list without options read as their value, a
// combo box's export text as its display text ("CA" read, "Canada" shown, before).
func TestListBox(t *testing.T) {
	fruit := "/Opt [(Apple) (Banana) (Cherry) (Date) (Elderberry)]"
	for _, c := range []struct {
		name, field string
		want        string
	}{
		{"nothing chosen", "/FT /Ch " + fruit, "Apple\nBanana"},
		{"chosen in view", "/FT /Ch /V (Banana) " + fruit, "Apple\nBanana"},
		{"chosen below the box", "/FT /Ch /V (Date) " + fruit, "Cherry\nDate"},
		{"chosen by index", "/FT /Ch /Ff 2097152 /I [4 3] " + fruit, "Cherry\nDate"},
		{"top index", "/FT /Ch /TI 2 /V (Apple) " + fruit, "Cherry\nDate"},
		{"top index past the end", "/FT /Ch /TI 9 " + fruit, "Apple\nBanana"},
		{"export and display texts", "/FT /Ch /V (c) /Opt [[(a) (Alpha)] [(b) (Beta)] [(c) (Gamma)]]", "Beta\nGamma"},
		{"taller box", "/FT /Ch /Rect [100 600 200 660] " + fruit + " %", "Apple\nBanana\nCherry\nDate"},
		{"inherited from the parent", "/Parent << /FT /Ch " + fruit + " >>", "Apple\nBanana"},
		{"combo box", "/FT /Ch /Ff 131072 /V (Cherry) " + fruit, "Cherry"},
		{"combo box, export text", "/FT /Ch /Ff 131072 /V (CA) /Opt [[(BE) (Belgium)] [(CA) (Canada)]]", "Canada"},
		{"combo box, typed value", "/FT /Ch /Ff 393216 /V (Chile) /Opt [[(BE) (Belgium)] [(CA) (Canada)]]", "Chile"},
		{"no options", "/FT /Ch /V (Fig)", "Fig"},
	} {
		t.Run(c.name, func(t *testing.T) {
			field, rect := c.field, "/Rect [100 600 200 630]"
			if strings.HasSuffix(field, " %") {
				field, rect = strings.TrimSuffix(field, " %"), "" // the case's own box
			}
			got, err := pagesText(t, widgetPDF(rect+" "+field))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// widgetPDF is a one-page PDF with one form field without an appearance: field is its
// dictionary's entries after /DA (12 points), /Rect among them.
func widgetPDF(field string) []byte {
	return testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] >>"),
		[]byte("<< /Type /Annot /Subtype /Widget /DA (0 g /Helv 12 Tf) "+field+" >>"),
	)
}
