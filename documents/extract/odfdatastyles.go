package extract

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// odfDataStyles reads an ODF part's data styles (number:date-style, time-style,
// number-style, percentage-style, currency-style) as the Excel format codes that draw the
// same fields ("dd/mm/yyyy", "#,##0.00", "0%", `"€"#,##0.00`), so that a chart's numbers
// stored as they stand (a category's serial number, 0.25) read as its axis shows them
// (numfmt.go draws them). A style's style:map (LibreOffice's "value()>=0" to the style of
// positive numbers) becomes a section of the code. General (number:number without
// decimal places, and nothing else) is no code: the number stays as it stands.
type odfDataStyles struct {
	codes  map[string]string // style name → format code
	maps   map[string][2]string
	name   string // the style being read
	kind   string // its element's name
	code   strings.Builder
	inText bool
	// general: the style has a number:number of no decimal places; other: anything else
	general, other bool
}

// start takes an element's start; it reports whether it was one of a data style.
func (d *odfDataStyles) start(t xml.StartElement) bool {
	if t.Name.Space == "style" && t.Name.Local == "map" && d.name != "" {
		if d.maps == nil {
			d.maps = map[string][2]string{}
		}
		d.maps[d.name] = [2]string{strings.ReplaceAll(attr(t, "condition"), " ", ""), attr(t, "apply-style-name")}
		return true
	}
	if t.Name.Space != "number" {
		return false
	}
	if t.Name.Local != "text" && t.Name.Local != "number" {
		d.other = true
	}
	name := t.Name.Local
	if name == "month" && attr(t, "textual") == "true" {
		name = "month name"
	}
	if codes, ok := odfDateFields[name]; ok {
		if attr(t, "style") == "long" {
			d.code.WriteString(codes[0])
		} else {
			d.code.WriteString(codes[1])
		}
		return true
	}
	switch t.Name.Local {
	case "date-style", "time-style", "number-style", "percentage-style", "currency-style":
		d.name, d.kind = attr(t, "name"), t.Name.Local
		d.code.Reset()
		d.general, d.other = false, false
	case "am-pm":
		d.code.WriteString("AM/PM")
	case "number":
		if !hasAttr(t, "decimal-places") {
			d.general = true
			d.code.WriteString("General")
			return true
		}
		d.other = true
		d.code.WriteString(odfDigits(t) + odfDecimals(t))
	case "scientific-number":
		d.code.WriteString(odfDigits(t) + odfDecimals(t) + "E+" + strings.Repeat("0", odfStyleCount(t, "min-exponent-digits", 1, 1)))
	case "fraction":
		num := strings.Repeat("?", odfStyleCount(t, "min-numerator-digits", 1, 1))
		den := strings.Repeat("?", odfStyleCount(t, "min-denominator-digits", 1, 1))
		if v := odfStyleCount(t, "denominator-value", 0, 1); v > 0 {
			den = strconv.Itoa(v)
		}
		whole := ""
		if odfStyleCount(t, "min-integer-digits", 0, 0) > 0 {
			whole = "# "
		}
		d.code.WriteString(whole + num + "/" + den)
	case "text", "currency-symbol":
		d.inText = true
	}
	return true
}

// odfDateFields are the format codes of a date or time style's fields: long, then short
// (number:style="long" or not); a textual month is "month name".
var odfDateFields = map[string][2]string{
	"day": {"dd", "d"}, "month": {"mm", "m"}, "month name": {"mmmm", "mmm"}, "year": {"yyyy", "yy"},
	"day-of-week": {"dddd", "ddd"}, "hours": {"hh", "h"}, "minutes": {"mm", "m"}, "seconds": {"ss", "s"},
}

// odfDigits is a number's integer digits as a format code: its min-integer-digits zeros
// (at least one #), grouped by thousands where number:grouping says.
func odfDigits(t xml.StartElement) string {
	n := odfStyleCount(t, "min-integer-digits", 0, 0)
	digits := strings.Repeat("0", n)
	if n == 0 {
		digits = "#"
	}
	if attr(t, "grouping") == "true" {
		digits = "#," + strings.Repeat("#", max(0, 3-n)) + digits
	}
	return digits
}

// odfDecimals is a number's decimals as a format code: decimal-places of them, zeros up to
// min-decimal-places (all where it is not given) and #s after.
func odfDecimals(t xml.StartElement) string {
	n := min(odfStyleCount(t, "decimal-places", 0, 0), 30)
	if n == 0 {
		return ""
	}
	zeros := n
	if hasAttr(t, "min-decimal-places") {
		zeros = min(odfStyleCount(t, "min-decimal-places", 0, 0), n)
	}
	return "." + strings.Repeat("0", zeros) + strings.Repeat("#", n-zeros)
}

// odfStyleCount is a count attribute of a data style's element, def where it is missing or
// below least.
func odfStyleCount(t xml.StartElement, name string, def, least int) int {
	n, err := strconv.Atoi(attr(t, name))
	if err != nil || n < least {
		return def
	}
	return min(n, 30)
}

// end takes an element's end; it reports whether it was one of a data style.
func (d *odfDataStyles) end(t xml.EndElement) bool {
	if t.Name.Space == "style" && t.Name.Local == "map" && d.name != "" {
		return true
	}
	if t.Name.Space != "number" {
		return false
	}
	switch t.Name.Local {
	case "date-style", "time-style", "number-style", "percentage-style", "currency-style":
		if d.name != "" && d.code.Len() > 0 && (d.other || !d.general) {
			if d.codes == nil {
				d.codes = map[string]string{}
			}
			d.codes[d.name] = d.code.String()
		}
		d.name = ""
	case "text", "currency-symbol":
		d.inText = false
	}
	return true
}

// text takes character data; it reports whether it was a data style's literal text (a
// percentage style's "%" is the code's: it scales the number).
func (d *odfDataStyles) text(data []byte) bool {
	if !d.inText || d.name == "" {
		return false
	}
	s := strings.ReplaceAll(string(data), `"`, "")
	if s == "" {
		return true
	}
	d.other = true
	if d.kind == "percentage-style" && strings.Contains(s, "%") {
		before, after, _ := strings.Cut(s, "%")
		d.code.WriteString(odfLiteral(before) + "%" + odfLiteral(after))
		return true
	}
	d.code.WriteString(odfLiteral(s))
	return true
}

// odfLiteral is s as a format code's quoted literal text ("" for none).
func odfLiteral(s string) string {
	if s == "" {
		return ""
	}
	return `"` + s + `"`
}

// format draws v by the data style name: v as it stands where it is no number or the style
// none of these.
func (d *odfDataStyles) format(name, v string) string {
	code := d.codes[name]
	// a style mapped to another for numbers of a sign (LibreOffice's currency and
	// negative-red styles: the positive numbers' style, applied for "value()>=0")
	if m, ok := d.maps[name]; ok && d.codes[m[1]] != "" {
		switch m[0] {
		case "value()>=0", "value()>0":
			code = d.codes[m[1]] + ";" + code
		case "value()<0":
			code = code + ";" + d.codes[m[1]]
		}
	}
	if code == "" {
		return v
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
		return v
	}
	return formattedNumber(parseNumFormat(code), v, false)
}
