package pdftext

import "github.com/ledongthuc/pdf"

// Optional content (layers, ISO 32000-1 §8.11). Text marked as belonging to a layer that
// the document's default configuration turns off is not shown, and pdftotext does not
// read it: Illustrator keeps its colour labels in such a layer (PDFTron's
// op_blend_test.pdf). A group is known by its dictionary's text (the object reader does
// not give references), which two layers of one name and settings would share.

// hiddenLayers are the optional content groups the default configuration turns off,
// read once: those of /OFF, or all but those of /ON where /BaseState is /OFF.
type hiddenLayers struct {
	read    bool
	baseOff bool
	off, on map[string]bool
}

func (r *reader) layers() *hiddenLayers {
	h := &r.ocg
	if h.read {
		return h
	}
	h.read = true
	d := r.pdf.Trailer().Key("Root").Key("OCProperties").Key("D")
	h.baseOff = d.Key("BaseState").Name() == "OFF"
	h.off, h.on = groupSet(d.Key("OFF")), groupSet(d.Key("ON"))
	return h
}

func groupSet(a pdf.Value) map[string]bool {
	s := map[string]bool{}
	for i := 0; i < a.Len() && i < 10_000; i++ {
		s[a.Index(i).String()] = true
	}
	return s
}

// hidden says whether the optional content group or membership dictionary v is off.
func (r *reader) hidden(v pdf.Value) bool {
	if v.Kind() != pdf.Dict {
		return false
	}
	h := r.layers()
	off := func(g pdf.Value) bool {
		k := g.String()
		return h.off[k] || h.baseOff && !h.on[k]
	}
	if v.Key("Type").Name() != "OCMD" {
		return off(v)
	}
	groups := v.Key("OCGs")
	if groups.Kind() == pdf.Dict {
		return off(groups)
	}
	n := min(groups.Len(), 1000)
	if n == 0 {
		return false
	}
	offs := 0
	for i := range n {
		if off(groups.Index(i)) {
			offs++
		}
	}
	switch v.Key("P").Name() {
	case "AllOn":
		return offs > 0
	case "AnyOff":
		return offs == 0
	case "AllOff":
		return offs < n
	}
	return offs == n // AnyOn, the default
}
