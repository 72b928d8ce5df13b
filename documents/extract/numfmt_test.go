package extract

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// formatted is what a number format code makes of v in a cell: its date kind where it is
// a date section, else the text.
func formatted(code string, v float64) string {
	sec, abs := parseNumFormat(code).section(v)
	switch {
	case sec == nil:
		return "General"
	case sec.date != xlsxNumber:
		return sec.formatDate(v, false)
	}
	return sec.formatNumber(v, abs, func(g float64) string { return strconv.FormatFloat(g, 'f', -1, 64) })
}

// TestNumFormat checks number format codes against what Excel shows: the examples of
// ECMA-376 Part 1, 18.8.31 (numFmts), the built-in formats, and the codes of POI's and
// Open XML SDK's test workbooks.
func TestNumFormat(t *testing.T) {
	for _, c := range []struct {
		code string
		v    float64
		want string
	}{
		// digit placeholders and decimals (ECMA-376's examples)
		{"####.#", 1234.59, "1234.6"},
		{"#.000", 8.9, "8.900"},
		{"0.#", 0.631, "0.6"},
		{"#.0#", 12, "12.0"},
		{"#.0#", 1234.568, "1234.57"},
		{"#.##", 0.5, ".5"},
		{"#.##", 1, "1."},
		{"#", 0, ""},
		{"0", 2.5, "3"},         // half away from zero, not to even
		{"0.00", 1.005, "1.01"}, // the decimal the file stores, not its binary neighbour
		{"0.00", -0.001, "0.00"},
		{"00000", 123, "00123"},
		{"000-00-0000", 123456789, "123-45-6789"},
		{"(###) ###-####", 5551234567, "(555) 123-4567"},
		{"???.???", 1.5, "1.5"},
		// thousands separators and scaling
		{"#,###", 12000, "12,000"},
		{"#,##0", 1234567.891, "1,234,568"},
		{"#,##0.00", 1024143.4067, "1,024,143.41"},
		{"#,", 12000, "12"},
		{"0.0,,", 12200000, "12.2"},
		{`#,##0,"K"`, 1234567, "1,235K"},
		{`#,,"M"`, 1021000000, "1021M"},
		{"0,000", 5, "0,005"},
		// percent and scientific
		{"0%", 0.08, "8%"},
		{"0.00%", 0.1234, "12.34%"},
		{"#,##0.00%", 3.5e-4, "0.04%"},
		{"0.00E+00", 12345, "1.23E+04"},
		{"0.00E+00", 0.00012, "1.20E-04"},
		{"0.00E+00", 9.999, "1.00E+01"},
		{"##0.0E+0", 12345, "12.3E+3"},
		{"0.0E-0", 12345, "1.2E4"},
		{"0.0E-0", 0.00012, "1.2E-4"},
		{"0.0e+0", 12345, "1.2e+4"},
		// fractions
		{"# ?/?", 1.5, "1 1/2"},
		{"# ?/?", 0.5, "1/2"},
		{"# ?/?", 2, "2"},
		{"# ??/??", 3.14159, "3 14/99"},
		{"?/8", 0.3, "2/8"},
		{"# ?/4", 1.75, "1 3/4"},
		// a whole number under a fixed denominator: no "/4" left over ("0   4 in." for 0.1)
		{`# ?/4 "in."`, 0.1, "0     in."},
		{"# ?/16", 2.99, "3"},
		{`"about "# ?/8`, 0.5, "about  4/8"},
		{"# ???/???", 5.3, "5   3/10"},
		// sections: positive; negative; zero; text
		{`#,##0.00_);[Red](#,##0.00)`, -1234.5, "(1,234.50)"},
		{`#,##0.00_);[Red](#,##0.00)`, 1234.5, "1,234.50"},
		{`0.00;-0.00;"zero"`, 0, "zero"},
		{`0;-0;;@`, 0, ""},
		{`;;;`, 5, ""},
		{`General;[Red]\-General`, -5, "-5"},
		{`"$"#,##0_);\("$"#,##0\)`, -1500, "($1,500)"},
		{"$0.00", -5, "-$5.00"},
		// conditions
		{`[>=100]"big";[<0]"neg";"small"`, 150, "big"},
		{`[>=100]"big";[<0]"neg";"small"`, -3, "neg"},
		{`[>=100]"big";[<0]"neg";"small"`, 5, "small"},
		{`[>=1000000]0.0,,"M";[>=1000]0.0,"K";0`, 2500000, "2.5M"},
		{`[>=1000000]0.0,,"M";[>=1000]0.0,"K";0`, 2500, "2.5K"},
		{`[>=1000000]0.0,,"M";[>=1000]0.0,"K";0`, 25, "25"},
		{`[<=-1000]-0,"K";0`, -2500, "-3K"},
		{`[Red][<=100]0;[Blue][>100]0.0`, 150, "150.0"},
		// literals, escapes, padding, fills, colours, locales
		{`0.00 "kg"`, 2, "2.00 kg"},
		{`\$0`, 5, "$5"},
		{`_(* #,##0_)`, 1234, "1,234"},
		{`_("$"* #,##0.00_)`, 1234, "$ 1,234.00"},
		{`[$€-407] #,##0.00`, 5, "€ 5.00"},
		{`[$-409]#,##0.00`, 5, "5.00"},
		{`[Color10]0`, 5, "5"},
		// dates and times (written as ISO dates, times on the format's clock)
		{"mm-dd-yy", 45000, "2023-03-15"},
		{"h:mm AM/PM", 0.75, "6:00 PM"},
		{"h:mm:ss AM/PM", 0.0001, "12:00:09 AM"},
		{"[h]:mm:ss", 1.5, "36:00:00"},
		{`[$-409]mmmm d, yyyy;@`, 45000, "2023-03-15"},
		{"h:mm", 0.3541666, "8:30"},
		{"hh:mm", 0.3541666, "08:30"},
		{"[m]:ss.000", 3.14159, "4523:53.376"},
		{"[s].000", 3.14159, "271433.376"},
		{"[hh]:mm:ss.0", 3.14159, "75:23:53.4"},
		{"[h]:mm:ss", -3.14159, "-75:23:53"},
		// text around and between the codes of a date or time (POI's ElapsedFormatTests);
		// a date keeps its own layout
		{`"It was "[h]" hours"`, 1.125, "It was 27 hours"},
		{`[m]" minutes"`, 0.5, "720 minutes"},
		{`\T\i\m\e\: h:mm`, 0.75, "Time: 18:00"},
		{`"Due "yyyy-mm-dd`, 45000, "Due 2023-03-15"},
		{`yyyy\-mm\-dd h:mm`, 45000.5, "2023-03-15 12:00"},
		{`[h]" hours "mm" minutes"`, 1.12575, "27 hours 01 minutes"},
		{`[m]" min "ss" s"`, 0.0105, "15 min 07 s"},
		{`h" h "mm AM/PM`, 0.75, "6 h 00 PM"},
		{"h AM/PM", 0.75, "6 PM"},
		{"mm:ss", 0.00382, "05:30"},
	} {
		if got := formatted(c.code, c.v); got != c.want {
			t.Errorf("%q of %v: got %q, want %q", c.code, c.v, got, c.want)
		}
	}
}

// TestNumFormatBuiltin checks the built-in formats (ECMA-376 18.8.30) by their ids.
func TestNumFormatBuiltin(t *testing.T) {
	for _, c := range []struct {
		id   int
		v    float64
		want string
	}{
		{1, 2.5, "3"}, {2, 1.234, "1.23"}, {3, 1234.5, "1,235"}, {4, 1234.5, "1,234.50"},
		{9, 0.125, "13%"}, {10, 0.125, "12.50%"}, {11, 1234, "1.23E+03"}, {12, 0.25, "1/4"},
		{13, 0.3333, "1/3"}, {37, -1234, "(1,234)"}, {38, 1234, "1,234"}, {39, -1.5, "(1.50)"},
		{41, 0, "-"}, {42, 1234, "$ 1,234"}, {43, -1.5, "(1.50)"}, {44, 0, "$ -"},
		{48, 1234, "1.2E+3"}, {18, 0.5, "12:00 PM"}, {22, 45000.25, "2023-03-15 6:00"}, {45, 0.00382, "05:30"}, {47, 0.0038205, "05:30.1"}, {46, 2, "48:00:00"},
	} {
		if got := formatted(builtinCodes[c.id], c.v); got != c.want {
			t.Errorf("built-in %d (%q) of %v: got %q, want %q", c.id, builtinCodes[c.id], c.v, got, c.want)
		}
	}
}

// TestNumFormatText checks the text section.
func TestNumFormatText(t *testing.T) {
	for _, c := range []struct{ code, text, want string }{
		{`;;;"Name: "@`, "Bob", "Name: Bob"},
		{`0.00;@" kg"`, "heavy", "heavy kg"},
		{`0.00`, "as is", "as is"},
		{`@`, "x", "x"},
		{builtinCodes[44], "n/a", "n/a"},
	} {
		if got := parseNumFormat(c.code).formatText(c.text); got != c.want {
			t.Errorf("%q of %q: got %q, want %q", c.code, c.text, got, c.want)
		}
	}
	if f := parseNumFormat("@"); len(f.sections) != 0 {
		t.Errorf(`"@" has number sections: %v`, f.sections)
	}
}

// FuzzNumFormat parses any code and writes any number with it: no panic, no hang.
func FuzzNumFormat(f *testing.F) {
	for _, s := range []string{"#,##0.00_);[Red](#,##0.00)", "[>=100]0;[<0]0;0", "# ??/??", "##0.0E+0", `[$€-407]"a"\b_c*d@`, "[h]:mm:ss AM/PM", ";;;", "0.0,,", "?/8", "[<=", `"`, "0/0/0", "E+E-", "#,#,#,.,,"} {
		f.Add(s, 1234.5678)
		f.Add(s, -0.001)
	}
	f.Fuzz(func(t *testing.T, code string, v float64) {
		if len(code) > 255 || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= 1e15 {
			return
		}
		nf := parseNumFormat(code)
		if sec, abs := nf.section(v); sec != nil && sec.date == xlsxNumber {
			sec.formatNumber(v, abs, func(g float64) string { return strconv.FormatFloat(g, 'g', -1, 64) })
		}
		nf.formatText("text")
	})
}

// TestNumFormatLongFraction: a denominator of ten placeholders is searched to four digits,
// not to 10^10 (minutes).
func TestNumFormatLongFraction(t *testing.T) {
	done := make(chan string)
	go func() { done <- formatted("# "+strings.Repeat("?", 10)+"/"+strings.Repeat("?", 10), 0.1234) }()
	select {
	case got := <-done:
		if strings.TrimSpace(got) != "617/5000" {
			t.Errorf("got %q, want 617/5000", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a fraction of 10-digit placeholders did not finish in 10 s")
	}
}

// TestGeneralNumber: a number without a fixed-point format reads as Excel shows it, to 15
// significant digits (umya-spreadsheet's issue_296.xlsx: a sum stored -21.249999999999982,
// which Excel shows -21.25), and so does a negative serial under a time format, which
// Excel cannot draw as a time ("#####").
func TestGeneralNumber(t *testing.T) {
	for _, c := range []struct{ stored, want string }{
		{"-21.249999999999982", "-21.25"},
		{"0.30000000000000004", "0.3"},
		{"19.989999999999998", "19.99"},
		{"1700.0", "1700"},
		{"3.14159265358979", "3.14159265358979"},
		{"123456789012345.6", "123456789012346"},
		{"0.000123456789012345678", "0.000123456789012346"},
		{"1E+300", "1E+300"}, // forms with many zeros stay as stored
		{"1.5E-9", "1.5E-9"},
		{"0", "0"},
	} {
		f, err := strconv.ParseFloat(c.stored, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := generalNumber(c.stored, f); got != c.want {
			t.Errorf("generalNumber(%s) = %q, want %q", c.stored, got, c.want)
		}
	}
	if got := formatted(`[$-F400]h:mm:ss\ AM/PM`, -21.249999999999982); got != "-21.25" {
		t.Errorf("a negative time: %q, want -21.25", got)
	}
}
