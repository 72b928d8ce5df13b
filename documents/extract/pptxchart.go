package extract

import (
	"encoding/xml"
	"errors"
	"strings"
)

// chartNS is DrawingML's chart namespace: a slide's graphic frame holds a chart in an
// a:graphicData of this uri, by a c:chart whose r:id names the chart part
// (ppt/charts/chartN.xml).
const chartNS = "http://schemas.openxmlformats.org/drawingml/2006/chart"

// chart is what a chart part shows in words: its title, its axes' titles, its series'
// names, its categories (the category axis's labels) and the values its data labels show.
// Other values are left out: they are the chart's numbers, drawn as bars and points, and
// its value axis's scale.
type chart struct {
	title, axisTitles []string
	autoTitle         bool // a c:title with no text of its own: it shows the series' name
	series            []string
	categories        []string
	// values is, for each series whose data labels show values, the values they show
	values [][]string
	// pie: a pie or doughnut chart, whose legend lists the categories; legend: it has one;
	// catAxis: a category or date axis is drawn; catNames, serNames: data labels show them.
	pie, legend, catAxis, catNames, serNames bool
}

// readChart reads the chart part; a damaged chart reads as no chart (the slide's own text
// is read all the same), while the budgets' errors stop the reading. inSheet says the chart
// is a workbook's, whose values are its sheets' cells, read already: the values its data
// labels show are left out, where a slide's or a Word document's chart is their only copy.
func readChart(a *archive, part string, inSheet bool) (string, error) {
	var c chart
	var path []string // the open elements' local names
	var text, para, val strings.Builder
	var ser, cacheFormat, format string
	catSeries := -1 // the series whose categories are read (the first that has any)
	deleted, date1904 := false, false
	var valueLabels chartValueLabels // data labels that show values
	in := func(name string) bool {
		for _, p := range path {
			if p == name {
				return true
			}
		}
		return false
	}
	skip := 0
	err := a.walkXML(part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			// a fallback repeats what its choice holds; extensions hold what Office 2013
			// hides (c15:filteredBarSeries: series filtered out of the chart)
			if t.Name.Local == "Fallback" || t.Name.Local == "extLst" || skip > 0 {
				skip++
				return nil
			}
			path = append(path, t.Name.Local)
			valueLabels.start(t, in)
			switch t.Name.Local {
			case "title":
				text.Reset()
			case "p":
				para.Reset()
			case "ser":
				ser = ""
			case "cat":
				cacheFormat = ""
			case "pt":
				format = attr(t, "formatCode")
				val.Reset()
			case "pieChart", "pie3DChart", "doughnutChart", "ofPieChart":
				c.pie = true
			case "date1904":
				date1904 = attr(t, "val") == "1" || attr(t, "val") == "true"
			case "legend":
				c.legend = true
			case "catAx", "dateAx":
				deleted = false
			case "delete":
				deleted = attr(t, "val") == "1" || attr(t, "val") == "true" || attr(t, "val") == ""
			case "tickLblPos": // an axis drawn without its labels
				if attr(t, "val") == "none" {
					deleted = true
				}
			case "showCatName", "showSerName":
				if !in("txPr") && (attr(t, "val") == "1" || attr(t, "val") == "true" || attr(t, "val") == "") {
					if t.Name.Local == "showCatName" {
						c.catNames = true
					} else {
						c.serNames = true
					}
				}
			}
		case xml.EndElement:
			if skip > 0 {
				skip--
				return nil
			}
			if len(path) == 0 {
				return nil
			}
			name := path[len(path)-1]
			path = path[:len(path)-1]
			valueLabels.end(name, in)
			switch {
			case name == "p" && in("title"):
				if s := strings.Join(strings.Fields(para.String()), " "); s != "" {
					if text.Len() > 0 {
						text.WriteByte(' ')
					}
					text.WriteString(s)
				}
			case name == "title" && in("chart") && !in("plotArea"):
				c.autoTitle = text.Len() == 0
				if text.Len() > 0 {
					c.title = append(c.title, text.String())
				}
			case name == "title" && (in("catAx") || in("valAx") || in("dateAx") || in("serAx")):
				if text.Len() > 0 {
					c.axisTitles = append(c.axisTitles, text.String())
				}
			case name == "ser":
				c.series = append(c.series, ser)
			case (name == "catAx" || name == "dateAx") && !deleted:
				c.catAxis = true
			case name == "pt" && in("cat") && len(path) > 0:
				if catSeries == -1 || catSeries == len(c.series) {
					catSeries = len(c.series)
					v := strings.TrimSpace(val.String())
					if in("numCache") || in("numLit") {
						if format == "" {
							format = cacheFormat
						}
						v = formattedNumber(chartFormat(format), v, date1904)
					}
					c.categories = append(c.categories, v)
				}
			}
		case xml.CharData:
			valueLabels.text(t, last(path), in)
			switch top := last(path); {
			case top == "t" && in("title") && in("rich"):
				para.Write(t)
			case top == "v" && in("title"):
				text.Write(t)
			case top == "v" && in("ser") && in("tx") && !in("cat"):
				ser += string(t)
			case top == "v" && in("cat"):
				val.Write(t)
			case top == "formatCode" && in("cat"):
				cacheFormat += string(t) // the cache's format, for points without their own
			}
		}
		return nil
	})
	if errors.Is(err, ErrCorrupt) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	if !inSheet {
		c.values = valueLabels.values(date1904)
	}
	return c.text(), nil // counted against the text budget with the slide's
}

// chartFormat is a category cache's number format (General where it has none).
func chartFormat(code string) *numFormat {
	if code == "" || strings.EqualFold(code, "general") {
		return nil
	}
	return parseNumFormat(code)
}

func last(path []string) string {
	if len(path) == 0 {
		return ""
	}
	return path[len(path)-1]
}

// text is the chart's words as lines: the title (a title with no text of its own shows
// the one series' name), the axes' titles, the series' names where a legend or data
// labels show them, the categories where an axis, a pie's legend or data labels do, and
// each series' values where its data labels show them, separated by tabs.
func (c *chart) text() string {
	var lines []string
	title := c.title
	if c.autoTitle && len(c.series) == 1 {
		title = c.series
	}
	lines = append(lines, title...)
	lines = append(lines, c.axisTitles...)
	if (c.legend && !c.pie) || c.serNames {
		lines = append(lines, strings.Join(nonEmpty(c.series), "\t"))
	}
	if (c.catAxis && !c.pie) || (c.pie && c.legend) || c.catNames {
		lines = append(lines, strings.Join(nonEmpty(c.categories), "\t"))
	}
	for _, v := range c.values {
		lines = append(lines, strings.Join(nonEmpty(v), "\t"))
	}
	return strings.Join(nonEmpty(lines), "\n")
}

func nonEmpty(s []string) []string {
	var out []string
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
