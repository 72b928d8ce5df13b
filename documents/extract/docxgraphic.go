package extract

// graphic reads in place the part a drawing of part names through its relationship id, a
// chart (word/charts/chartN.xml: the words the chart shows, as a slide's chart reads) or a
// SmartArt graphic's data (word/diagrams/dataN.xml), each line on a line of the paragraph
// that holds the drawing. A part that is missing, external or damaged costs only itself.
func (w *wordWalker) graphic(a *archive, part, id string, kind graphicKind) error {
	target := w.relTarget(a, part, id)
	if target == "" || !a.has(target) {
		return nil
	}
	s, err := kind.read(a, target)
	if err != nil || s == "" {
		return err
	}
	p := w.para()
	if t := p.text.String(); t != "" && t[len(t)-1] != '\n' {
		p.text.WriteByte('\n')
	}
	p.text.WriteString(s)
	p.text.WriteByte('\n')
	return nil
}
