package extract

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// odfDataStyles reads an ODF part's date and time styles (number:date-style,
// number:time-style) as the Excel format codes that draw the same fields ("dd/mm/yyyy"), so
// that a chart's categories stored as serial numbers under an axis of such a style read as
// the dates the axis shows (numfmt.go draws them).
type odfDataStyles struct {
	codes  map[string]string // style name → format code
	name   string            // the style being read
	code   strings.Builder
	inText bool
}

// start takes an element's start; it reports whether it was one of a data style.
func (d *odfDataStyles) start(t xml.StartElement) bool {
	if t.Name.Space != "number" {
		return false
	}
	long := attr(t, "style") == "long"
	pick := func(l, s string) string {
		if long {
			return l
		}
		return s
	}
	switch t.Name.Local {
	case "date-style", "time-style":
		d.name = attr(t, "name")
		d.code.Reset()
	case "day":
		d.code.WriteString(pick("dd", "d"))
	case "month":
		if attr(t, "textual") == "true" {
			d.code.WriteString(pick("mmmm", "mmm"))
		} else {
			d.code.WriteString(pick("mm", "m"))
		}
	case "year":
		d.code.WriteString(pick("yyyy", "yy"))
	case "day-of-week":
		d.code.WriteString(pick("dddd", "ddd"))
	case "hours":
		d.code.WriteString(pick("hh", "h"))
	case "minutes":
		d.code.WriteString(pick("mm", "m"))
	case "seconds":
		d.code.WriteString(pick("ss", "s"))
	case "am-pm":
		d.code.WriteString("AM/PM")
	case "text":
		d.inText = true
	}
	return true
}

// end takes an element's end; it reports whether it was one of a data style.
func (d *odfDataStyles) end(t xml.EndElement) bool {
	if t.Name.Space != "number" {
		return false
	}
	switch t.Name.Local {
	case "date-style", "time-style":
		if d.name != "" && d.code.Len() > 0 {
			if d.codes == nil {
				d.codes = map[string]string{}
			}
			d.codes[d.name] = d.code.String()
		}
		d.name = ""
	case "text":
		d.inText = false
	}
	return true
}

// text takes character data; it reports whether it was a data style's literal text.
func (d *odfDataStyles) text(data []byte) bool {
	if !d.inText || d.name == "" {
		return false
	}
	d.code.WriteString(`"` + strings.ReplaceAll(string(data), `"`, "") + `"`)
	return true
}

// format draws a category v by the date or time style name: v as it stands where it is no
// number or the style none of these.
func (d *odfDataStyles) format(name, v string) string {
	code := d.codes[name]
	if code == "" {
		return v
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
		return v
	}
	return formattedNumber(parseNumFormat(code), v, false)
}
