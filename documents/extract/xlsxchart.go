package extract

import (
	"encoding/xml"
	"errors"
	"strings"
)

// sheetCharts reads the charts the drawings of a worksheet or chart sheet part hold, in
// the drawings' order: each as the words it shows (pptxchart.go), "" for one that shows
// none. A drawing or chart that is missing or damaged costs only itself; the budgets'
// errors stop the reading.
func (x *xlsxReader) sheetCharts(part string) ([]string, error) {
	var texts []string
	for _, r := range relationships(x.a, part) {
		if r.external || !strings.HasSuffix(r.typ, "/drawing") || !x.a.has(r.target) {
			continue
		}
		var charts []string
		rels := relTargets(x.a, r.target)
		var frame graphicFrame
		skip := 0
		err := x.a.walkXML(r.target, func(tok xml.Token) error {
			switch t := tok.(type) {
			case xml.StartElement:
				if t.Name.Local == "Fallback" || skip > 0 {
					skip++ // a fallback repeats what its choice holds
				} else if kind, id := frame.start(t); kind == chartGraphic {
					if c := rels[id]; c != "" && x.a.has(c) {
						charts = append(charts, c)
					}
				}
			case xml.EndElement:
				if skip > 0 {
					skip--
				} else {
					frame.end(t)
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, ErrCorrupt) {
			return nil, err
		}
		for _, c := range charts {
			s, err := readChart(x.a, c, true)
			if err != nil {
				return nil, err
			}
			if s != "" {
				texts = append(texts, s)
			}
		}
	}
	return texts, nil
}

// writeCharts writes a sheet's charts' words under its cells, a paragraph each.
func (x *xlsxReader) writeCharts(texts []string) error {
	for _, s := range texts {
		if x.body.Len() > 0 && !strings.HasSuffix(x.body.String(), "\n\n") {
			x.body.WriteString("\n")
		}
		x.body.WriteString(s + "\n\n")
		if err := x.b.addText(len(s)); err != nil {
			return err
		}
	}
	return nil
}
