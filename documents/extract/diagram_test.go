package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// diagramData is a SmartArt data model whose points are listed out of their outline's
// order: two top nodes (srcOrd 1 and 0), the first with a child, transitions and a
// presentation point with text of their own, and a presOf connection, none of which reads.
func diagramData() string {
	pt := func(id, typ, text string) string {
		s := `<dgm:pt modelId="` + id + `"`
		if typ != "" {
			s += ` type="` + typ + `"`
		}
		s += `><dgm:prSet/><dgm:spPr/><dgm:t><a:bodyPr/><a:lstStyle/>`
		if text == "" {
			s += `<a:p><a:endParaRPr lang="en-US"/></a:p>`
		} else {
			s += `<a:p><a:r><a:rPr lang="en-US"/><a:t>` + text + `</a:t></a:r></a:p>`
		}
		return s + `</dgm:t></dgm:pt>`
	}
	cxn := func(src, dest, ord string) string {
		return `<dgm:cxn modelId="c` + src + dest + `" srcId="` + src + `" destId="` + dest + `" srcOrd="` + ord + `" destOrd="0"/>`
	}
	return `<dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><dgm:ptLst>` +
		pt("0", "doc", "") + pt("2", "", "Second") + pt("t1", "parTrans", "TRANSITION") + pt("1", "", "First") +
		pt("3", "", "Child of first") + pt("4", "", "") + pt("p1", "pres", "PRESENTATION") +
		`</dgm:ptLst><dgm:cxnLst>` + cxn("0", "2", "1") + cxn("0", "1", "0") + cxn("1", "3", "0") + cxn("1", "4", "1") +
		`<dgm:cxn modelId="x" type="presOf" srcId="2" destId="p1" srcOrd="0" destOrd="0"/>` + `</dgm:cxnLst></dgm:dataModel>`
}

// TestDiagrams reads a SmartArt graphic where it stands, slide or document, as its nodes'
// text in the order of its outline; a graphic whose data part is missing or damaged costs
// only itself.
func TestDiagrams(t *testing.T) {
	relIDs := func(id string) string {
		return `<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">` +
			`<dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:dm="` + id + `" r:lo="rLo" r:qs="rQs" r:cs="rCs"/></a:graphicData></a:graphic>`
	}
	const want = "First\nChild of first\nSecond"
	for _, id := range []string{"rId2", "rMissing", "rDamaged"} {
		t.Run(id, func(t *testing.T) {
			graphic := want + "\n\n"
			if id != "rId2" {
				graphic = ""
			}
			frame := `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Diagram"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>` + relIDs(id) + `</p:graphicFrame>`
			slide := `<p:sld ` + pmlNS + `><p:cSld><p:spTree>` + shape("title", run("Plan")) + frame + shape("", run("After")) + `</p:spTree></p:cSld></p:sld>`
			deck := ooxmlPackage("ppt/presentation.xml", presentType,
				testdocs.File{Name: "ppt/presentation.xml", Body: `<p:presentation ` + pmlNS + `><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`},
				testdocs.File{Name: "ppt/_rels/presentation.xml.rels", Body: rels("rId1", "slide slides/slide1.xml")},
				testdocs.File{Name: "ppt/slides/slide1.xml", Body: slide},
				testdocs.File{Name: "ppt/slides/_rels/slide1.xml.rels", Body: rels("rId2", "diagramData ../diagrams/data1.xml", "rDamaged", "diagramData ../diagrams/data2.xml")},
				testdocs.File{Name: "ppt/diagrams/data1.xml", Body: diagramData()},
				testdocs.File{Name: "ppt/diagrams/data2.xml", Body: `<dgm:dataModel><dgm:ptLst><dgm:pt>`},
			)
			doc, err := extract.Bytes(context.Background(), "deck.pptx", deck, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "pptx", []extract.Section{{Heading: "Slide 1: Plan", Text: graphic + "After"}})

			body := `<w:p><w:r><w:t>Before.</w:t></w:r></w:p><w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">` + relIDs(id) + `</wp:inline></w:drawing></w:r></w:p><w:p><w:r><w:t>After.</w:t></w:r></w:p>`
			word := testdocs.Zip(
				testdocs.File{Name: "word/document.xml", Body: `<?xml version="1.0"?><w:document ` + wordNS + ` xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>` + body + `</w:body></w:document>`},
				testdocs.File{Name: "word/_rels/document.xml.rels", Body: rels("rId2", "diagramData diagrams/data1.xml", "rDamaged", "diagramData diagrams/data2.xml")},
				testdocs.File{Name: "word/diagrams/data1.xml", Body: diagramData()},
				testdocs.File{Name: "word/diagrams/data2.xml", Body: `<dgm:dataModel><dgm:ptLst><dgm:pt>`},
			)
			doc, err = extract.Bytes(context.Background(), "plan.docx", word, nil)
			if err != nil {
				t.Fatal(err)
			}
			text := "Before.\n\nAfter."
			if id == "rId2" {
				text = "Before.\n\n" + want + "\n\nAfter."
			}
			checkSections(t, doc, "docx", []extract.Section{{Text: text}})
		})
	}
}
