package extract

import (
	"encoding/xml"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// chartValueLabels reads which points of a DrawingML chart's series show their values as
// data labels and the values they show: a series' c:dLbls, else its chart group's (the
// c:dLbls after a c:barChart's series), turned on by c:showVal and off by c:delete, and its
// c:dLbl overriding one point (c:idx); the values are the series' cache (c:val or a
// scatter's c:yVal), drawn by the labels' c:numFmt where it is not linked to the source
// (sourceLinked="0"), else by the point's or the cache's format code.
type chartValueLabels struct {
	series     []*chartLabelSeries
	groupStart int // the first series of the chart group being read
	// the c:dLbls and c:dLbl being read: whether they show values (-1: they do not say),
	// are deleted, their format code and point
	lblsShow, lblShow, lblIdx int
	lblsFormat                string
	pt                        int // the value point being read (c:pt idx)
	ptFormat                  string
	val                       strings.Builder
}

type chartLabelSeries struct {
	show      int // 1: its points show their values, 0: not, -1: as its group says
	points    map[int]bool
	format    string            // the labels' own format code
	cacheCode string            // the value cache's format code
	vals      map[int][2]string // point → value, its format code
}

// maxLabelPoints bounds the points of a series whose labels are read.
const maxLabelPoints = 10_000

func (l *chartValueLabels) cur() *chartLabelSeries {
	if len(l.series) == 0 {
		return nil
	}
	return l.series[len(l.series)-1]
}

// start takes an element's start; in says whether an element of a name is open (the
// element itself included).
func (l *chartValueLabels) start(t xml.StartElement, in func(string) bool) {
	on := func() int {
		if v := attr(t, "val"); v == "1" || v == "true" || v == "" {
			return 1
		}
		return 0
	}
	s := l.cur()
	switch name := t.Name.Local; {
	case strings.HasSuffix(name, "Chart") && in("plotArea"): // c:barChart, c:pieChart…
		l.groupStart = len(l.series)
	case name == "ser":
		l.series = append(l.series, &chartLabelSeries{show: -1, vals: map[int][2]string{}})
	case name == "dLbls":
		l.lblsShow, l.lblsFormat = -1, ""
	case name == "dLbl":
		l.lblShow, l.lblIdx = -1, -1
	case name == "idx" && in("dLbl"):
		if n, err := strconv.Atoi(attr(t, "val")); err == nil && n >= 0 && n < maxLabelPoints {
			l.lblIdx = n
		}
	case in("txPr"):
	case name == "showVal" && in("dLbl"):
		l.lblShow = on()
	case name == "showVal" && in("dLbls"):
		l.lblsShow = on()
	case name == "delete" && in("dLbl"):
		if on() == 1 {
			l.lblShow = 0
		}
	case name == "delete" && in("dLbls"):
		if on() == 1 {
			l.lblsShow = 0
		}
	case name == "numFmt" && in("dLbls") && !in("dLbl"):
		if attr(t, "sourceLinked") == "0" {
			l.lblsFormat = attr(t, "formatCode")
		}
	case name == "pt" && s != nil && in("ser") && (in("val") || in("yVal")):
		l.pt, l.ptFormat = -1, attr(t, "formatCode")
		if n, err := strconv.Atoi(attr(t, "idx")); err == nil && n >= 0 && n < maxLabelPoints {
			l.pt = n
		}
		l.val.Reset()
	}
}

// end takes an element's end, with in as start's (the element no longer open).
func (l *chartValueLabels) end(name string, in func(string) bool) {
	s := l.cur()
	switch {
	case name == "dLbl" && s != nil && in("ser"):
		if l.lblIdx >= 0 && l.lblShow >= 0 {
			if s.points == nil {
				s.points = map[int]bool{}
			}
			s.points[l.lblIdx] = l.lblShow == 1
		}
	case name == "dLbls" && s != nil && in("ser"):
		s.show, s.format = max(l.lblsShow, 0), l.lblsFormat
	case name == "dLbls" && l.lblsShow >= 0: // the group's, for its series without their own
		for _, g := range l.series[min(l.groupStart, len(l.series)):] {
			if g.show == -1 {
				g.show, g.format = l.lblsShow, l.lblsFormat
			}
		}
	case name == "pt" && s != nil && in("ser") && (in("val") || in("yVal")) && l.pt >= 0:
		s.vals[l.pt] = [2]string{strings.TrimSpace(l.val.String()), l.ptFormat}
	}
}

// text takes character data under the element top.
func (l *chartValueLabels) text(data []byte, top string, in func(string) bool) {
	s := l.cur()
	if s == nil || !in("ser") || !(in("val") || in("yVal")) {
		return
	}
	switch top {
	case "v":
		if in("pt") {
			l.val.Write(data)
		}
	case "formatCode":
		s.cacheCode += string(data)
	}
}

// values is the values each series' labels show, in the order of its points.
func (l *chartValueLabels) values(date1904 bool) [][]string {
	var out [][]string
	for _, s := range l.series {
		var vals []string
		for _, i := range slices.Sorted(maps.Keys(s.vals)) {
			show := s.show == 1
			if p, set := s.points[i]; set {
				show = p
			}
			v := s.vals[i]
			if !show || v[0] == "" {
				continue
			}
			code := s.format
			if code == "" {
				code = v[1]
			}
			if code == "" {
				code = s.cacheCode
			}
			vals = append(vals, formattedNumber(chartFormat(code), v[0], date1904))
		}
		if len(vals) > 0 {
			out = append(out, vals)
		}
	}
	return out
}
