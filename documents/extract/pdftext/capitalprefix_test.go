package pdftext

import "testing"

// TestCapitalBreakWholePrefix: a break before a capital loses its hyphen where the document
// writes whole a word the joined word starts with (lshort-finnish's "Post-" "Scriptiksi"
// and "Post-" "Script-grafiikka" beside "PostScript"), and keeps it in a compound
// ("Addison-" "Wesley") and where the word written whole takes too few letters past the break.
func TestCapitalBreakWholePrefix(t *testing.T) {
	tests := []struct{ name, lines, want string }{
		{"a case ending after a word written whole",
			"(PostScript files. Convert to Post-) Tj 0 -12 Td (Scriptiksi now.) Tj",
			"PostScript files. Convert to PostScriptiksi now."},
		{"a compound's rest after a word written whole",
			"(PostScript files. Encapsulated Post-) Tj 0 -12 Td (Script-grafiikka too.) Tj",
			"PostScript files. Encapsulated PostScript-grafiikka too."},
		{"a compound's parts make no word written whole",
			"(Addison and Wes Reading. Addison-) Tj 0 -12 Td (Wesley Reading.) Tj",
			"Addison and Wes Reading. Addison-Wesley Reading."},
		{"two letters past the break are too few",
			"(the CNFSA form. We reduce CNF-) Tj 0 -12 Td (SAT to it.) Tj",
			"the CNFSA form. We reduce CNF-SAT to it."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pagesText(t, pdfWith(simpleFont(""), "", "BT /F1 10 Tf 72 700 Td "+tt.lines+" ET"))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
