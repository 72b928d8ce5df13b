package extract

import (
	"encoding/xml"
	"errors"
	"strconv"
	"strings"
)

// odfChart reads the chart of an embedded object (draw:object's xlink:href, "./Object 1":
// its content.xml holding office:chart) as the words it shows, in the chart model of a
// DOCX's, slide's or sheet's chart (pptxchart.go): the title and subtitle, the axes'
// titles, the series' names (chart:label-cell-address) where a legend or data labels show
// them, and the categories (chart:categories) where a category axis, a pie's legend or data
// labels do; categories stored as numbers read as the category axis's data style draws
// them (a date, "25%", "€ 1,500.00").
// Names and categories are cells: of the chart's own table ("local-table", what
// Writer and Impress store) or of the spreadsheet's sheets (a Calc chart's ranges:
// "Sheet1.$A$2:.$A$5"), read through sheets. "" for an object that is no chart, is
// missing or is damaged; the budgets' errors stop the reading.
func odfChart(a *archive, href string, sheets *odfSheetCells) (string, error) {
	if href == "" || strings.Contains(href, ":") { // a linked file elsewhere
		return "", nil
	}
	part := resolve("", strings.TrimSuffix(href, "/")+"/content.xml")
	if !a.has(part) {
		return "", nil
	}
	var c chart
	var path []string
	var text, para strings.Builder
	isChart, scatter := false, false
	hidden := map[string]bool{}      // styles of axes drawn without labels
	labels := map[string]int{}       // styles of series whose data labels show 1: categories, 2: series' names
	style := ""                      // the automatic style being read
	var seriesRefs []string          // each series' name cell
	var catRefs string               // the categories' range
	local := newODFTable()           // the chart's own table
	axisStyle, axisDim := "", ""     // the axis open
	var styles odfDataStyles         // data styles: dates, times, numbers
	dataStyle := map[string]string{} // chart styles' data styles (style:data-style-name)
	catStyle := ""                   // the category axis's data style
	var valueLabels odfValueLabels   // data labels that show values
	in := func(name string) bool {
		for _, p := range path {
			if p == name {
				return true
			}
		}
		return false
	}
	err := a.walkXML(part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			path = append(path, t.Name.Local)
			if in("table") && t.Name.Space == "table" || in("table") && in("p") {
				local.start(t)
				return nil
			}
			if styles.start(t) {
				return nil
			}
			switch t.Name.Local {
			case "style":
				style = attr(t, "name")
				if ds := attr(t, "data-style-name"); ds != "" {
					dataStyle[style] = ds
				}
			case "chart-properties":
				valueLabels.chartProperties(t, style)
				if attr(t, "display-label") == "false" {
					hidden[style] = true
				}
				if v := attr(t, "data-label-text"); v == "true" {
					labels[style] |= 1
				}
				if v := attr(t, "data-label-series"); v == "true" {
					labels[style] |= 2
				}
			case "chart":
				if t.Name.Space == "chart" {
					isChart = true
					switch attr(t, "class") {
					case "chart:circle", "chart:ring":
						c.pie = true
					case "chart:scatter", "chart:bubble":
						scatter = true
					}
				}
			case "title", "subtitle":
				text.Reset()
			case "line-break":
				para.WriteByte(' ')
			case "p":
				para.Reset()
			case "legend":
				c.legend = true
			case "data-point":
				valueLabels.dataPoint(t)
			case "axis":
				axisStyle, axisDim = attr(t, "style-name"), attr(t, "dimension")
				if axisDim == "x" && catStyle == "" {
					catStyle = dataStyle[axisStyle]
				}
			case "categories":
				if catRefs == "" {
					catRefs = attr(t, "cell-range-address")
				}
			case "series":
				seriesRefs = append(seriesRefs, attr(t, "label-cell-address"))
				valueLabels.startSeries(t)
				if l := labels[attr(t, "style-name")]; l != 0 {
					c.catNames = c.catNames || l&1 != 0
					c.serNames = c.serNames || l&2 != 0
				}
			}
		case xml.EndElement:
			if len(path) == 0 {
				return nil
			}
			name := path[len(path)-1]
			path = path[:len(path)-1]
			if in("table") || name == "table" && t.Name.Space == "table" {
				local.end(t)
				return nil
			}
			if styles.end(t) {
				return nil
			}
			switch {
			case name == "p" && (in("title") || in("subtitle")):
				if s := strings.Join(strings.Fields(para.String()), " "); s != "" {
					if text.Len() > 0 {
						text.WriteByte(' ')
					}
					text.WriteString(s)
				}
			case (name == "title" || name == "subtitle") && in("axis"):
				if text.Len() > 0 {
					c.axisTitles = append(c.axisTitles, text.String())
				}
			case name == "title" || name == "subtitle":
				if text.Len() > 0 {
					c.title = append(c.title, text.String())
				}
			case name == "axis":
				if axisDim == "x" && !scatter && !hidden[axisStyle] && !c.pie {
					c.catAxis = true
				}
				axisStyle, axisDim = "", ""
			case name == "style":
				style = ""
			}
		case xml.CharData:
			switch {
			case styles.text(t):
			case in("table"):
				local.text(t)
			case in("p") && (in("title") || in("subtitle")):
				para.Write(t)
			}
		}
		return nil
	})
	if errors.Is(err, ErrCorrupt) || !isChart {
		return "", nil
	} else if err != nil {
		return "", err
	}
	onSheet := func(ref odfCellRef) bool { return ref.table != "" && ref.table != local.name && sheets != nil }
	var names []odfCellRef
	for _, r := range seriesRefs {
		refs := odfRange(r)
		if len(refs) == 0 {
			refs = []odfCellRef{{col: -1}}
		}
		names = append(names, refs[0])
	}
	cats := odfRange(catRefs)
	var wanted []odfCellRef
	for _, ref := range append(names, cats...) {
		if onSheet(ref) {
			wanted = append(wanted, ref)
		}
	}
	if sheets != nil {
		if err := sheets.load(wanted); err != nil {
			return "", err
		}
	}
	cell := func(ref odfCellRef) string {
		if onSheet(ref) {
			return sheets.got[ref]
		}
		return local.cells[[2]int{ref.col, ref.row}]
	}
	for _, ref := range names {
		c.series = append(c.series, cell(ref))
	}
	for _, ref := range cats {
		c.categories = append(c.categories, styles.format(catStyle, cell(ref)))
	}
	if sheets == nil { // a Calc chart's values are its sheet's cells, read already (not asked of sheets above)
		c.values = valueLabels.values(cell, &styles, dataStyle)
	}
	return c.text(), nil
}

// odfCellRef is a cell of a chart's range: its table's name ("" for the one named
// before it), column and row from 0.
type odfCellRef struct {
	table    string
	col, row int
}

// odfMaxRangeCells bounds the cells a chart's range names that are read.
const odfMaxRangeCells = 10_000

// odfRange parses a cell range address ("local-table.$A$2:.$A$5", "'Sheet 1'.$B$4", a
// list of them apart by spaces) into its cells, row by row; an address it cannot parse
// gives none.
func odfRange(s string) []odfCellRef {
	var out []odfCellRef
	for _, part := range odfRangeParts(s) {
		from, to, isRange := strings.Cut(part, ":")
		a, ok := odfCell(from, "")
		if !ok {
			continue
		}
		if !isRange {
			out = append(out, a)
			continue
		}
		b, ok := odfCell(to, a.table)
		if !ok || b.table != a.table {
			continue
		}
		for r := min(a.row, b.row); r <= max(a.row, b.row); r++ {
			for c := min(a.col, b.col); c <= max(a.col, b.col); c++ {
				if len(out) >= odfMaxRangeCells {
					return out
				}
				out = append(out, odfCellRef{a.table, c, r})
			}
		}
	}
	return out
}

// odfCell parses one cell address, "Sheet1.$A$2", ".$A$5" (of the table table), "$'It”s'.A1".
func odfCell(s, table string) (odfCellRef, bool) {
	s = strings.TrimPrefix(s, "$")
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		if name := s[:i]; name != "" {
			if len(name) >= 2 && name[0] == '\'' && name[len(name)-1] == '\'' {
				name = strings.ReplaceAll(name[1:len(name)-1], "''", "'")
			}
			table = name
		}
		s = s[i+1:]
	}
	s = strings.ReplaceAll(s, "$", "")
	i := 0
	col := 0
	for i < len(s) && s[i] >= 'A' && s[i] <= 'Z' && i < 4 {
		col = col*26 + int(s[i]-'A'+1)
		i++
	}
	row, err := strconv.Atoi(s[i:])
	if i == 0 || err != nil || row < 1 {
		return odfCellRef{}, false
	}
	return odfCellRef{table, col - 1, row - 1}, true
}

// chartCells is the cells of the sheets a spreadsheet's charts name; nil for a text or
// presentation, whose charts hold their own tables.
func (w *odfWalker) chartCells() *odfSheetCells {
	if !w.spreadsheet {
		return nil
	}
	if w.sheetCells == nil {
		w.sheetCells = &odfSheetCells{a: w.a, got: map[odfCellRef]string{}, asked: map[odfCellRef]bool{}}
	}
	return w.sheetCells
}

// addChart puts a chart's words where its frame stands, each line on a line of the
// paragraph that holds it (as a Word document's chart reads), else as a paragraph of its own
// (a slide's chart); a sheet's charts go under its cells, as an XLSX's do (writeCharts).
func (w *odfWalker) addChart(s string) {
	if s == "" {
		return
	}
	if w.spreadsheet && w.sheetTable {
		w.sheetCharts = append(w.sheetCharts, s) // under the sheet's cells, as an XLSX's
		return
	}
	if w.ownPara(s) {
		return
	}
	p := w.para()
	if t := p.text.String(); t != "" && !strings.HasSuffix(t, "\n") {
		p.text.WriteByte('\n')
	}
	p.text.WriteString(s + "\n")
	p.space = true
}

// odfRangeParts splits a list of ranges at the spaces between them, not at those inside a
// quoted table name ("'My data'.$A$2").
func odfRangeParts(s string) []string {
	var parts []string
	quoted, start := false, 0
	for i := 0; i <= len(s); i++ {
		switch {
		case i < len(s) && s[i] == '\'':
			quoted = !quoted
		case i == len(s) || s[i] == ' ' && !quoted:
			if i > start {
				parts = append(parts, s[start:i])
			}
			start = i + 1
		}
	}
	return parts
}
