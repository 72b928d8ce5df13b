package pdftext

import (
	"strings"
	"testing"
)

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
			readsAs(t, tt.name, pdfWith(simpleFont(""), "", "BT /F1 10 Tf 72 700 Td "+tt.lines+" ET"), tt.want)
		})
	}
}

// TestCapitalBreakNextCell: a line ending in a hyphen joins the next line's capital as a
// compound only when that line starts under it, before its end: refcard-fr's table, read
// row by row, has a command's cell "echo chaîne-de-" and then its description's cell
// right of it, "Afficher une chaîne à" (read "chaîne-de-Afficher"; "caractères" is under
// "chaîne-de-"), and "mkdir noms-de-" before "Créer des répertoires." a little lower.
func TestCapitalBreakNextCell(t *testing.T) {
	tests := []struct {
		name   string
		nextX0 float32 // where the next line starts; the first runs from 72 to 147
		nextY  float32 // its baseline; the first's is 700
		want   string
	}{
		{"a line under it goes on with a compound", 72, 688, "echo chaine-de-\x03\nAfficher une chaine\n\n"},
		{"the next cell on its row does not", 160, 700, "echo chaine-de-\nAfficher une chaine\n\n"},
		{"nor the next cell a little lower", 160, 697, "echo chaine-de-\nAfficher une chaine\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := []*line{
				{x0: 72, x1: 147, y: 700, size: 10},
				{x0: tt.nextX0, x1: tt.nextX0 + 95, y: tt.nextY, size: 10},
			}
			var b strings.Builder
			writeBlock(&b, lines, []string{"echo chaine-de-", "Afficher une chaine"}, false)
			if got := b.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
