package extract

// graphic reads in place the part a drawing of part names through its relationship id, a
// chart (word/charts/chartN.xml, read by readChart: the words the chart shows, as a
// slide's chart reads) or a SmartArt graphic's data (word/diagrams/dataN.xml, read by
// readDiagram), each line on a line of the paragraph that holds the drawing. A part that
// is missing, external or damaged costs only itself.
func (w *wordWalker) graphic(a *archive, part, id string, read func(*archive, string) (string, error)) error {
	target := w.relTarget(a, part, id)
	if target == "" || !a.has(target) {
		return nil
	}
	s, err := read(a, target)
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
