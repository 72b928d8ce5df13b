package extract

import "encoding/xml"

// graphicKind is what a DrawingML graphic frame shows from a part of its own.
type graphicKind int

const (
	noGraphic      graphicKind = iota
	chartGraphic               // a chart: c:chart r:id names charts/chartN.xml (pptxchart.go)
	diagramGraphic             // SmartArt: dgm:relIds r:dm names diagrams/dataN.xml (diagram.go)
)

// read reads the part of a graphic of kind k as the words it shows.
func (k graphicKind) read(a *archive, part string) (string, error) {
	if k == diagramGraphic {
		return readDiagram(a, part)
	}
	return readChart(a, part, false)
}

// graphicFrame follows the graphic frames of a drawing part (a slide, a Word document, a
// sheet's drawing) to the parts that hold what they show: the uri of the a:graphicData
// open says whether it holds a chart or SmartArt.
type graphicFrame struct{ uri string }

// start takes an element's start; where it names a chart's or SmartArt graphic's part it
// returns the graphic's kind and the relationship id of its part.
func (g *graphicFrame) start(t xml.StartElement) (graphicKind, string) {
	switch {
	case t.Name.Local == "graphicData":
		g.uri = attr(t, "uri")
	case t.Name.Local == "chart" && g.uri == chartNS:
		return chartGraphic, relID(t)
	case t.Name.Local == "relIds" && g.uri == diagramNS:
		return diagramGraphic, attr(t, "dm")
	}
	return noGraphic, ""
}

// end takes an element's end.
func (g *graphicFrame) end(t xml.EndElement) {
	if t.Name.Local == "graphicData" {
		g.uri = ""
	}
}
