package extract

import (
	"encoding/xml"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// diagramNS is DrawingML's diagram (SmartArt) namespace: a graphic frame holds a SmartArt
// graphic in an a:graphicData of this uri, by a dgm:relIds whose r:dm names its data
// model part (diagrams/dataN.xml).
const diagramNS = "http://schemas.openxmlformats.org/drawingml/2006/diagram"

// diagramPoint is a point of a SmartArt data model: its type ("" for a node) and text.
type diagramPoint struct {
	typ, text string
}

// diagramEdge is a parent-of connection: the child's point and its order under the parent.
type diagramEdge struct {
	child string
	order int
}

// readDiagram reads a SmartArt graphic's data model part: its nodes' text, a line each,
// in the order of its outline (the parent-of connections from the document point, each
// parent's children by their order), as the graphic's shapes show it. Points of other
// kinds (transitions, presentation points) and empty nodes are left out. A damaged part
// reads as no text; the budgets' errors stop the reading.
func readDiagram(a *archive, part string) (string, error) {
	points := map[string]*diagramPoint{}
	var order []string // the points in the order the part lists them
	children := map[string][]diagramEdge{}
	var cur *diagramPoint
	var para, text strings.Builder
	inText, inT := false, false
	err := a.walkXML(part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "pt":
				id := attr(t, "modelId")
				cur = &diagramPoint{typ: attr(t, "type")}
				if _, seen := points[id]; !seen && id != "" {
					points[id] = cur
					order = append(order, id)
				}
				text.Reset()
			case "cxn":
				if typ := attr(t, "type"); typ == "" || typ == "parOf" {
					n, _ := strconv.Atoi(attr(t, "srcOrd"))
					src := attr(t, "srcId")
					children[src] = append(children[src], diagramEdge{child: attr(t, "destId"), order: n})
				}
			case "t": // dgm:t, a point's text body; a:t, a run's text in it
				if t.Name.Space == "a" {
					inT = inText
				} else {
					inText = cur != nil
				}
			case "p":
				para.Reset()
			case "br":
				para.WriteString(" ")
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				if t.Name.Space == "a" {
					inT = false
				} else {
					inText = false
				}
			case "p":
				if inText {
					if s := strings.Join(strings.Fields(para.String()), " "); s != "" {
						if text.Len() > 0 {
							text.WriteString(" ")
						}
						text.WriteString(s)
					}
				}
			case "pt":
				if cur != nil {
					cur.text = text.String()
				}
				cur = nil
			}
		case xml.CharData:
			if inT {
				para.Write(t)
			}
		}
		return nil
	})
	if errors.Is(err, ErrCorrupt) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	var lines []string
	seen := map[string]bool{}
	var walk func(id string, depth int)
	walk = func(id string, depth int) {
		if seen[id] || depth > maxDiagramDepth {
			return
		}
		seen[id] = true
		if p := points[id]; p != nil && (p.typ == "" || p.typ == "node" || p.typ == "asst") && p.text != "" {
			lines = append(lines, p.text)
		}
		kids := children[id]
		slices.SortStableFunc(kids, func(a, b diagramEdge) int { return a.order - b.order })
		for _, k := range kids {
			walk(k.child, depth+1)
		}
	}
	for _, id := range order {
		if points[id].typ == "doc" {
			walk(id, 0)
		}
	}
	for _, id := range order { // nodes no connection reaches, in the part's order
		walk(id, 0)
	}
	return strings.Join(lines, "\n"), nil
}

// maxDiagramDepth bounds a SmartArt outline's depth (a damaged part's connections may
// loop or run deep).
const maxDiagramDepth = 64
