package main

import (
	"reflect"
	"testing"
)

func TestWordsSkipsControlOnlyTokens(t *testing.T) {
	tests := []struct {
		text  string
		loose bool
		want  []string
	}{
		{"a \x17 b", false, []string{"a", "b"}},
		{"\x17\x17 \x01", false, nil},
		{"a\x17b c", false, []string{"a\x17b", "c"}},   // a control character inside a word stays part of it
		{"x \u0085\u0090 y", true, []string{"x", "y"}}, // C1 controls too
		{"word.", true, []string{"word"}},
		{"\\par\u200c \u200c ipaex \\Uchar\u200c,", false, []string{"\\par", "ipaex", "\\Uchar,"}}, // a non-joiner that joins nothing is not part of a word
		{"\u0645\u06cc\u200c\u062e", false, []string{"\u0645\u06cc\u200c\u062e"}},                  // inside a Persian word it is
		{"\ufe35 5 \ufe36", false, []string{"(", "5", ")"}},                                        // vertical forms as their characters
	}
	for _, tt := range tests {
		if got := words([]byte(tt.text), tt.loose); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("words(%q, %v) = %q, want %q", tt.text, tt.loose, got, tt.want)
		}
	}
}

func TestRTLNormParts(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{".يشمل الحصر", []string{".", "يشمل", "الحصر"}},          // pdftotext's period before the next word
		{"الحصر. يشمل", []string{"الحصر", ".", "يشمل"}},          // EdgeChat's after its own: the same words
		{"َو ِب", []string{"و", "ب"}},                            // harakat dropped: a mark on the wrong letter counts as the letters do
		{"ُ", nil},                                               // a mark alone is no word
		{"\\ptextنووسراوە", []string{"\\", "ptext", "نووسراوە"}}, // a Latin term run into the next word
		{"کـــــه", []string{"که"}},                              // tatweel
		{"word. (Paragraph)", []string{"word.", "(Paragraph)"}},  // tokens without right-to-left letters stay whole
	}
	rtlNorm = true
	defer func() { rtlNorm = false }()
	for _, tt := range tests {
		if got := words([]byte(tt.text), false); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("words(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestUnmarkPandoc(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Ouch[1].\n\n[1] A tachyon walks into a bar.", "Ouch.\n\nA tachyon walks into a bar."},
		{"~~Today's Special: Salmon~~ Sold out", "Today's Special: Salmon Sold out"},
		{"[Cow in pasture]\n\nCaption", "[Cow in pasture]\n\nCaption"}, // alt text, as EdgeChat prints it
		{"Carroll [EBook #19033]\n[1]", "Carroll [EBook #19033]\n"},
		{"{d[i].movieName} symbol[♣] tab[ ].", "{d[i].movieName} symbol[♣] tab[ ]."}, // brackets inside words are text
		{"· It is the 1st row", "It is the 1st row"},
		{"2.1. Flour\n  1.1 Terms\n(iv) Dry\n2019 was\n3.14 is pi", "Flour\nTerms\nDry\n2019 was\nis pi"}, // outline labels as EdgeChat writes them
		{"– first\n◦ sub\n⁃ item\n–5 °C", "first\nsub\nitem\n–5 °C"},                                      // bullets Word and TextEdit draw
		{"1.  1.  a)  vier\n\n4.  \n\n5.  \n\n6.  sechs", "vier\n\n\n\n\n\nsechs"},                        // pandoc's nested and empty items
		{"Aa • one • two | bb", "Aa one two bb"},                                                          // bullets in a table row
		{"H_(2)O and ^(I am inline styled.) here", "H2O and I am inline styled. here"},
		{"def __init__(self, debug=False):", "def __init__(self, debug=False):"}, // code, not a subscript                    // a superscript run of words (PHPWord's Sample_28_ReadRTF.rtf)
		{"Km² and H₂O", "Km2 and H2O"},                                           // pandoc's sub- and superscript digits
	}
	for _, tt := range tests {
		if got := string(unmark([]byte(tt.in), true)); got != tt.want {
			t.Errorf("unmark(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestIsSheet: spreadsheets, XLSX and ODS alike, keep numbers at a line's start (PhpSpreadsheet's
// OOCalcTest.ods lost "1.11", "2.22"… from odt2txt's text, one cell a line, as list labels).
func TestIsSheet(t *testing.T) {
	for doc, want := range map[string]bool{"a.xlsx": true, "b.XLSM": true, "c.ods": true, "d.ots": true, "e.odt": false, "f.docx": false, "g.pptx": false, "h.odp": false} {
		if got := isSheet(doc); got != want {
			t.Errorf("isSheet(%q) = %v, want %v", doc, got, want)
		}
	}
}

// TestUnmarkSheet: a sheet's rows keep numbers at a line's start, which in a document are
// list labels.
func TestUnmarkSheet(t *testing.T) {
	in := "\t1234.567\t1234.567\t1,234.57\n2.1 Flour"
	if got := string(unmarkLists([]byte(in), true, false)); got != "1234.567 1234.567 1,234.57\n2.1 Flour" {
		t.Errorf("unmarkLists(%q, lists false) = %q", in, got)
	}
	if got := string(unmarkLists([]byte(in), true, true)); got != "1,234.57\nFlour" {
		t.Errorf("unmarkLists(%q, lists true) = %q", in, got)
	}
}

func TestFramePlaceholder(t *testing.T) {
	in := "[-- Image: Title text9 --][-- Image: embedded object (OLE)2 --]\n\n[-- Image: Chart 15 --]PIE CHART"
	want := "  \n\n PIE CHART"
	if got := framePlaceholder.ReplaceAllString(in, " "); got != want {
		t.Errorf("framePlaceholder took %q to %q, want %q", in, got, want)
	}
}

// TestSameDecimals: every decimal number of a row is written at 6 decimals, the words
// around them as they are.
func TestSameDecimals(t *testing.T) {
	in := "Item\t38437509.329316579\t30488438.491809256\t1700.0\t-0.5\t2023-03-15\tv1.2.3\n"
	want := "Item\t38437509.329317\t30488438.491809\t1700\t-0.5\t2023-03-15\tv1.2.3\n"
	if got := string(sameDecimals([]byte(in))); got != want {
		t.Errorf("sameDecimals = %q, want %q", got, want)
	}
}

// TestUnquoteCSV: xlsx2csv's quoted cells read as the cells' text; text that is not CSV
// stays as it is.
func TestUnquoteCSV(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1 Wow\t\"[<10]#\"\" Wow\"\"\"\t1\n", "1 Wow\t[<10]#\" Wow\"\t1\n"},
		{"a\t\"two\nlines\"\n", "a\ttwo\nlines\n"},
		{"no quotes\there\n", "no quotes\there\n"},
		{"5\" pipe\tx\n", "5\" pipe\tx\n"},
	} {
		if got := string(unquoteCSV([]byte(c.in))); got != c.want {
			t.Errorf("unquoteCSV(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
