package extract

import "encoding/xml"

// odfValueLabels reads which of an ODF chart's data points show their values as data
// labels (chart:data-label-number "value" or "value-and-percentage" in a series' or a data
// point's style) and the values they show: the cells of the series' values range, drawn by
// the style's data style where the style does not take the cells' own
// (chart:link-data-style-to-source="false"). Percentages alone are left out: they are
// computed, not stored.
type odfValueLabels struct {
	shows  map[string]bool // styles that turn value labels on (true) or off (false)
	own    map[string]bool // styles that draw values by their own data style
	series []*odfLabelSeries
	point  int // the next data point's index in the last series
}

// odfLabelSeries is one series: its values' range and style, whether its points show their
// values, and the points whose styles say otherwise.
type odfLabelSeries struct {
	values, style string
	all           bool
	points        map[int]bool
}

// chartProperties takes a style's style:chart-properties.
func (l *odfValueLabels) chartProperties(t xml.StartElement, style string) {
	if l.shows == nil {
		l.shows, l.own = map[string]bool{}, map[string]bool{}
	}
	switch attr(t, "data-label-number") {
	case "value", "value-and-percentage":
		l.shows[style] = true
	case "none", "percentage":
		l.shows[style] = false
	}
	if attr(t, "link-data-style-to-source") == "false" {
		l.own[style] = true
	}
}

// startSeries takes a chart:series.
func (l *odfValueLabels) startSeries(t xml.StartElement) {
	style := attr(t, "style-name")
	l.series = append(l.series, &odfLabelSeries{values: attr(t, "values-cell-range-address"), style: style, all: l.shows[style]})
	l.point = 0
}

// dataPoint takes a series' chart:data-point, which stands for chart:repeated points.
func (l *odfValueLabels) dataPoint(t xml.StartElement) {
	if len(l.series) == 0 {
		return
	}
	n := min(odfRepeat(t, "repeated"), odfMaxRangeCells)
	s := l.series[len(l.series)-1]
	if show, ok := l.shows[attr(t, "style-name")]; ok && l.point < odfMaxRangeCells {
		if s.points == nil {
			s.points = map[int]bool{}
		}
		for i := l.point; i < l.point+n; i++ {
			s.points[i] = show
		}
	}
	l.point += n
}

// shown is each labelled series' range, its cells from 0 and whether each shows.
func (s *odfLabelSeries) shown() ([]odfCellRef, []bool) {
	refs := odfRange(s.values)
	show := make([]bool, len(refs))
	any := false
	for i := range refs {
		show[i] = s.all
		if v, ok := s.points[i]; ok {
			show[i] = v
		}
		any = any || show[i]
	}
	if !any {
		return nil, nil
	}
	return refs, show
}

// values is the values each labelled series shows, cell giving a cell's text and styles
// and dataStyle the data styles of the chart's styles.
func (l *odfValueLabels) values(cell func(odfCellRef) string, styles *odfDataStyles, dataStyle map[string]string) [][]string {
	var out [][]string
	for _, s := range l.series {
		refs, show := s.shown()
		var vals []string
		for i, ref := range refs {
			if !show[i] {
				continue
			}
			v := cell(ref)
			if l.own[s.style] {
				v = styles.format(dataStyle[s.style], v)
			}
			vals = append(vals, v)
		}
		if len(vals) > 0 {
			out = append(out, vals)
		}
	}
	return out
}
