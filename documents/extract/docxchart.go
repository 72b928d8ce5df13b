package extract

// chart reads in place the chart part a drawing of part names through its relationship
// id (word/charts/chartN.xml): the words the chart shows, as a slide's chart reads
// (pptxchart.go), each on a line of the paragraph that holds the drawing. A chart that is
// missing, external or damaged costs only itself.
func (w *wordWalker) chart(a *archive, part, id string) error {
	target := w.relTarget(a, part, id)
	if target == "" || !a.has(target) {
		return nil
	}
	s, err := readChart(a, target)
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
