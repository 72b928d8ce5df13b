package pdftext

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// Annotations are drawn on their page as pdftotext draws them (poppler draws each visible
// annotation's appearance stream): the filled fields of a form, free text, stamps. A free
// text note without an appearance shows its /Contents, as poppler makes its appearance, and
// a line without one its caption (lineCaption); poppler's appearances of the other kinds
// (squares, circles, polygons, ink, stamps' icons) hold no text. A form field with no
// appearance, or every field of a form that asks for appearances to be made
// (/NeedAppearances), shows its value as poppler makes it: a text or choice field its
// value, a checked box "✓", a chosen radio button "●", a push button its caption, a list
// box the options that fit in its box (listOptions).

// Bounds of the annotations read on one page.
const (
	maxAnnots     = 10_000 // annotations of one page
	maxFieldDepth = 32     // a field's parents, for its inherited type and value
)

// Annotation flags (ISO 32000-1 §12.5.3) that keep an annotation off the screen.
const (
	annotHidden = 1 << 1
	annotNoView = 1 << 5
)

// needAppearances says whether the document's form asks readers to make its fields'
// appearances from their values, read once.
func (r *reader) needAppearances() bool {
	if r.needAppear == 0 {
		r.needAppear = 2
		if r.pdf.Trailer().Key("Root").Key("AcroForm").Key("NeedAppearances").Bool() {
			r.needAppear = 1
		}
	}
	return r.needAppear == 1
}

// drawAnnots draws the visible annotations of a page (its dictionary pg).
func (p *page) drawAnnots(pg pdf.Value) error {
	var annots pdf.Value
	func() {
		defer func() { recover() }() // an /Annots the object reader cannot read: none drawn
		annots = pg.Key("Annots")
	}()
	if annots.Kind() != pdf.Array {
		return nil
	}
	nums := annotNums(annots)
	for i := range min(annots.Len(), maxAnnots) {
		if i < len(nums) && p.doc.silentAnnots()[nums[i]] {
			continue // a link: not read from its object stream (see silentAnnots)
		}
		if err := p.drawAnnot(annots, i); err != nil {
			return err
		}
	}
	return nil
}

// drawAnnot draws the i-th annotation of a page. One the object reader cannot read (a
// string it rejects: visualFAQ-fr's "\p"), or whose appearance is damaged, loses itself only,
// never the page's text; the budgets' errors stop the page.
func (p *page) drawAnnot(annots pdf.Value, i int) (err error) {
	gs, tm, tlm, forms, marked := p.gs, p.tm, p.tlm, len(p.forms), len(p.marked)
	defer func() {
		if e := recover(); e != nil {
			err = nil
		}
		if err != nil && !errors.Is(err, ErrTooBig) && !errors.Is(err, errStopped) {
			err = nil
		}
		p.gs, p.tm, p.tlm, p.forms, p.marked = gs, tm, tlm, p.forms[:forms], p.marked[:min(marked, len(p.marked))]
	}()
	a := annots.Index(i)
	if a.Kind() != pdf.Dict || a.Key("F").Int64()&(annotHidden|annotNoView) != 0 {
		return nil
	}
	rect, ok := annotRect(a.Key("Rect"))
	if !ok {
		return nil
	}
	sub := a.Key("Subtype").Name()
	if sub == "Popup" {
		return nil
	}
	ap := appearance(a)
	if sub == "Widget" && (ap.Kind() != pdf.Stream || p.doc.needAppearances()) {
		return p.fieldValue(a, rect)
	}
	if sub == "FreeText" && ap.Kind() != pdf.Stream {
		// a note without an appearance shows its text, as poppler makes it (10 pt unless
		// its default appearance sets a size)
		size := fontSize(a.Key("DA").RawString())
		if size <= 0 {
			size = 10
		}
		return p.drawLines(valueLines(a.Key("Contents")), size, 1.15*size, false, rect)
	}
	if sub == "Line" && ap.Kind() != pdf.Stream && a.Key("Cap").Bool() {
		return p.lineCaption(a)
	}
	return p.drawAppearance(ap, rect)
}

// appearance is an annotation's normal appearance: its stream, or of a dictionary of
// states the one its /AS names.
func appearance(a pdf.Value) pdf.Value {
	n := a.Key("AP").Key("N")
	if n.Kind() == pdf.Dict {
		n = n.Key(a.Key("AS").Name())
	}
	return n
}

// annotRect is an annotation's rectangle, its corners ordered.
func annotRect(v pdf.Value) (r [4]float64, ok bool) {
	if v.Kind() != pdf.Array || v.Len() != 4 {
		return r, false
	}
	for i := range r {
		r[i] = v.Index(i).Float64()
	}
	r[0], r[2] = min(r[0], r[2]), max(r[0], r[2])
	r[1], r[3] = min(r[1], r[3]), max(r[1], r[3])
	return r, true
}

// drawAppearance draws an appearance stream into rect (ISO 32000-1 §12.5.5): its bounding
// box, transformed by its matrix, scaled and moved onto the rectangle.
func (p *page) drawAppearance(ap pdf.Value, rect [4]float64) error {
	if ap.Kind() != pdf.Stream {
		return nil
	}
	if sub := ap.Key("Subtype").Name(); sub != "Form" && sub != "" {
		return nil // an image or other stream where an appearance should be
	}
	m, _ := arrayMatrix(ap.Key("Matrix"))
	box, ok := annotRect(ap.Key("BBox"))
	if !ok {
		return nil
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [][2]float64{{box[0], box[1]}, {box[2], box[1]}, {box[0], box[3]}, {box[2], box[3]}} {
		x, y := c[0]*m[0]+c[1]*m[2]+m[4], c[0]*m[1]+c[1]*m[3]+m[5]
		x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
	}
	sx, sy := 1.0, 1.0
	if x1 > x0 {
		sx = (rect[2] - rect[0]) / (x1 - x0)
	}
	if y1 > y0 {
		sy = (rect[3] - rect[1]) / (y1 - y0)
	}
	saved := p.gs
	p.gs = gstate{ctm: matrix{sx, 0, 0, sy, rect[0] - x0*sx, rect[1] - y0*sy}, scale: 1}
	err := p.runForm(ap, pdf.Value{})
	p.gs = saved
	return err
}

// fieldKey is a form field's entry, inherited from its parent fields.
func fieldKey(field pdf.Value, key string) pdf.Value {
	for range maxFieldDepth {
		if v := field.Key(key); v.Kind() != pdf.Null {
			return v
		}
		if field = field.Key("Parent"); field.Kind() != pdf.Dict {
			break
		}
	}
	return pdf.Value{}
}

// Field flags (ISO 32000-1 §12.7.4) that change how a field's value shows.
const (
	fieldRadio      = 1 << 15
	fieldPushButton = 1 << 16
	fieldPassword   = 1 << 13
	fieldCombo      = 1 << 17
)

// fieldValue draws a form field's value into its rectangle as poppler makes its appearance.
func (p *page) fieldValue(w pdf.Value, rect [4]float64) error {
	flags := fieldKey(w, "Ff").Int64()
	size := fontSize(fieldKey(w, "DA").RawString())
	if size <= 0 {
		size = 12
	}
	var lines []string
	step := 1.15 * size // between the baselines of a value's lines
	switch fieldKey(w, "FT").Name() {
	case "Tx":
		if flags&fieldPassword == 0 {
			lines = valueLines(fieldKey(w, "V"))
		}
	case "Ch":
		if flags&fieldCombo == 0 {
			if opts := fieldKey(w, "Opt"); opts.Kind() == pdf.Array && opts.Len() > 0 {
				lines, step = listOptions(w, opts, rect[3]-rect[1], size), listStep*size
				break
			}
		}
		lines = shownValues(valueLines(fieldKey(w, "V")), fieldKey(w, "Opt"))
	case "Btn":
		on := w.Key("AS").Name()
		if on == "" {
			on = fieldKey(w, "V").Name()
		}
		switch {
		case flags&fieldPushButton != 0:
			lines = valueLines(w.Key("MK").Key("CA"))
		case on == "" || on == "Off":
		case flags&fieldRadio != 0:
			lines = []string{"●"}
		default:
			lines = []string{"✓"}
		}
	}
	return p.drawLines(lines, size, step, step == listStep*size, rect)
}

// drawLines draws the lines of a value made into an appearance into rect at size, step
// apart: from the top (a list box's options from one step down), or one line in the middle.
func (p *page) drawLines(lines []string, size, step float64, list bool, rect [4]float64) error {
	if len(lines) == 0 {
		return nil
	}
	saved := p.gs
	p.gs = gstate{ctm: identity, scale: 1, size: size}
	defer func() { p.gs = saved }()
	y := rect[3] - size // the first line's baseline
	if list {
		y = rect[3] - step
	} else if len(lines) == 1 {
		y = rect[1] + (rect[3]-rect[1]-size)/2 + 0.2*size
	}
	for _, line := range lines {
		if err := p.drawString(line, size, rect[0]+2, y, 1, 0); err != nil {
			return err
		}
		y -= step
	}
	return nil
}

// drawString draws a line of text made into an appearance, at size in the field font (half
// an em a character), from (x, y) in page space along the direction (cos, sin), in the
// order a viewer shows it (visualOrder). The graphics state is drawLines'.
func (p *page) drawString(line string, size, x, y, cos, sin float64) error {
	f := p.doc.fieldFont()
	for _, t := range visualOrder(line) {
		if err := p.add(matrix{size * cos, size * sin, -size * sin, size * cos, x, y}, 0.5*size, f, t); err != nil {
			return err
		}
		x, y = x+0.5*size*cos, y+0.5*size*sin
	}
	return nil
}

// listStep is the distance between a list box's options, in ems of its font (poppler's
// drawListBox).
const listStep = 1.1

// listOptions are the options a list box without an appearance shows: from its top index
// (/TI, the first option visible) as many as fit in its height at listStep apart, each by
// its display text (an /Opt entry is a text or an [export text, display text] pair). A box
// without /TI that has an option chosen below what fits is shown scrolled just far enough
// to show it, as viewers show it. poppler draws every option from the top index on, past
// the box's bottom, and pdftotext reads those the box hides too (pdfium's listbox_form.pdf:
// 37 of its 52 words are options no viewer shows); the chosen value alone, read before,
// left out the options the page shows (recall 0.154, now 0.288 with precision 1.000).
func listOptions(w, opts pdf.Value, height, size float64) []string {
	var shown, export []string
	for i := range min(opts.Len(), 10_000) {
		o := opts.Index(i)
		e, d := o, o
		if o.Kind() == pdf.Array && o.Len() == 2 {
			e, d = o.Index(0), o.Index(1)
		}
		export, shown = append(export, textString(e.RawString())), append(shown, textString(d.RawString()))
	}
	rows := height / (listStep * size)
	if !(rows >= 1) || len(shown) == 0 {
		return nil // not one option fits (or a size that is no number)
	}
	fit := int(min(rows, float64(len(shown))))
	top := -1
	if ti := fieldKey(w, "TI"); ti.Kind() == pdf.Integer {
		top = int(ti.Int64())
	}
	if top < 0 || top >= len(shown) {
		top = 0
		if first := firstChosen(w, export, shown); first >= fit {
			top = first - fit + 1 // scrolled just far enough to show it
		}
	}
	lines := slices.Clone(shown[top:min(len(shown), top+fit)])
	for i, t := range lines {
		lines[i] = strings.NewReplacer("\r", " ", "\n", " ").Replace(t) // one line each; an empty one keeps its place
	}
	return lines
}

// shownValues are a combo box's chosen values as it shows them: a value that is the export
// text of an /Opt pair ([export text, display text]) shows as the pair's display text
// (a list of countries by code: "CA" shows "Canada"); another (typed into an editable box)
// as itself.
func shownValues(values []string, opts pdf.Value) []string {
	if opts.Kind() != pdf.Array {
		return values
	}
	for i, v := range values {
		for j := range min(opts.Len(), 10_000) {
			if o := opts.Index(j); o.Kind() == pdf.Array && o.Len() == 2 && textString(o.Index(0).RawString()) == v {
				values[i] = textString(o.Index(1).RawString())
				break
			}
		}
	}
	return values
}

// firstChosen is the index of a list box's first chosen option, by its /I indices or
// its value (/V: texts naming options by export or display text), -1 when none is chosen.
func firstChosen(w pdf.Value, export, shown []string) int {
	first := -1
	if is := fieldKey(w, "I"); is.Kind() == pdf.Array {
		for i := range min(is.Len(), 10_000) {
			if n := int(is.Index(i).Int64()); n >= 0 && n < len(export) && (first < 0 || n < first) {
				first = n
			}
		}
	}
	for _, v := range valueLines(fieldKey(w, "V")) {
		for i := range export {
			if (export[i] == v || shown[i] == v) && (first < 0 || i < first) {
				first = i
			}
		}
	}
	return first
}

// fieldFont draws the values of fields without an appearance: Latin text of half an em
// a character, its gaps as sure as a real font's.
func (r *reader) fieldFont() *font {
	if r.field == nil {
		f := *r.fallbackFont()
		f.guessed = false
		r.field = &f
	}
	return r.field
}

// valueLines is a field's value as the lines it shows: a text string, or each of an array's
// (a choice field with several chosen).
func valueLines(v pdf.Value) []string {
	var texts []string
	switch v.Kind() {
	case pdf.String:
		texts = []string{textString(v.RawString())}
	case pdf.Array:
		for i := range min(v.Len(), 1000) {
			if e := v.Index(i); e.Kind() == pdf.String {
				texts = append(texts, textString(e.RawString()))
			}
		}
	}
	var lines []string
	for _, t := range texts {
		t = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(t)
		for _, l := range strings.Split(t, "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// fontSize is the size of a default appearance string's "Tf" ("/Helv 10 Tf 0 g"), 0 when
// it has none or asks for the size to fit.
func fontSize(da string) float64 {
	l := &lexer{data: []byte(da)}
	var stack []operand
	for {
		var op operand
		kw, isOp, ok := l.nextShallow(&op)
		if !ok {
			return 0
		}
		if !isOp {
			if len(stack) < maxStack {
				stack = append(stack, op)
			}
			continue
		}
		if kw == "Tf" && len(stack) >= 1 && stack[len(stack)-1].kind == kNum {
			return stack[len(stack)-1].num
		}
		stack = stack[:0]
	}
}

// annotRefs is an array of references as the object reader prints it ("[12 0 R 14 0 R]").
var (
	annotRefs = regexp.MustCompile(`^\[(?:\d+ \d+ R ?)*\]$`)
	annotRef  = regexp.MustCompile(`(\d+) \d+ R`)
)

// annotNums are the object numbers of a page's annotations, nil unless each is a reference.
func annotNums(annots pdf.Value) []int {
	s := annots.String()
	if !annotRefs.MatchString(s) {
		return nil
	}
	var nums []int
	for _, m := range annotRef.FindAllStringSubmatch(s, maxAnnots) {
		n, _ := strconv.Atoi(m[1])
		nums = append(nums, n)
	}
	return nums
}

// Bounds of reading object streams for silentAnnots.
const (
	maxStmBytes   = 16 << 20 // an object stream's data
	maxStmsBytes  = 64 << 20 // all object streams' data
	maxStmHeadLen = 1024     // an object stream's dictionary
)

var (
	flateOnly  = regexp.MustCompile(`/Filter\s*(?:/FlateDecode|\[\s*/FlateDecode\s*\])`)
	silentType = regexp.MustCompile(`/Subtype\s*/(?:Link|Popup)\b`)
)

// silentAnnots returns the numbers of the objects that are annotations drawing nothing:
// links and pop-ups without an appearance. Reading each of a reference manual's thousands
// of links through the object reader cost half again the time of its text (for an object
// inside an object stream it inflates the stream anew) and memory; one pass over the file
// and its object streams finds them instead, and they are not read.
func (r *reader) silentAnnots() map[int]bool {
	if r.silent != nil {
		return r.silent
	}
	r.silent = map[int]bool{}
	data := r.data
	// objects written out in the file
	for _, kind := range []string{"/Link", "/Popup"} {
		for i := 0; ; {
			k := bytes.Index(data[i:], []byte(kind))
			if k < 0 {
				break
			}
			at := i + k
			i = at + len(kind)
			if num, text, ok := enclosingObject(data, at); ok && silentType.Match(text) && !bytes.Contains(text, []byte("/AP")) {
				r.silent[num] = true
			}
		}
	}
	// objects inside object streams
	var plain bytes.Buffer
	var zr io.ReadCloser
	total := 0
	for i := 0; ; {
		k := bytes.Index(data[i:], []byte("/ObjStm"))
		if k < 0 {
			break
		}
		at := i + k
		i = at + len("/ObjStm")
		start := bytes.LastIndex(data[max(0, at-maxStmHeadLen):at], []byte("obj"))
		end := bytes.Index(data[at:min(len(data), at+maxStmHeadLen)], []byte("stream"))
		if start < 0 || end < 0 {
			continue
		}
		start += max(0, at-maxStmHeadLen) + len("obj")
		dict := data[start : at+end]
		if !objStmType.Match(dict) || !flateOnly.Match(dict) || bytes.Contains(dict, []byte("/DecodeParms")) {
			continue
		}
		n, first := objStmN.FindSubmatch(dict), objStmFirst.FindSubmatch(dict)
		if n == nil || first == nil {
			continue
		}
		count, _ := strconv.Atoi(string(n[1]))
		body, _ := streamBody(data, at+end+len("stream"), dict, nil)
		var err error
		if zr == nil {
			zr, err = zlib.NewReader(bytes.NewReader(body))
		} else {
			err = zr.(zlib.Resetter).Reset(bytes.NewReader(body), nil)
		}
		if err != nil {
			zr = nil
			continue
		}
		plain.Reset()
		plain.ReadFrom(io.LimitReader(zr, maxStmBytes))
		if total += plain.Len(); total > maxStmsBytes || r.alive() != nil {
			break
		}
		r.silentMembers(plain.Bytes(), count, first[1])
	}
	return r.silent
}

// silentMembers adds the silent annotations among the count members of an object stream's
// data, which start at first.
func (r *reader) silentMembers(plain []byte, count int, first []byte) {
	at, _ := strconv.Atoi(string(first))
	if at > len(plain) {
		return
	}
	l := &lexer{data: plain[:at]}
	var ids, offs []int
	for range count {
		var id, off operand
		if _, isOp, ok := l.nextShallow(&id); !ok || isOp || id.kind != kNum {
			break
		}
		if _, isOp, ok := l.nextShallow(&off); !ok || isOp || off.kind != kNum {
			break
		}
		ids, offs = append(ids, int(id.num)), append(offs, at+int(off.num))
	}
	for i, id := range ids {
		end := len(plain)
		if i+1 < len(offs) {
			end = offs[i+1]
		}
		if offs[i] < 0 || offs[i] > end || end > len(plain) {
			continue
		}
		if text := plain[offs[i]:end]; silentType.Match(text) && !bytes.Contains(text, []byte("/AP")) {
			r.silent[id] = true
		}
	}
}

// enclosingObject is the number and text of the object written out in data ("N G obj" …
// "endobj") that holds data[at], when it is a dictionary of at most maxStmHeadLen bytes.
func enclosingObject(data []byte, at int) (num int, text []byte, ok bool) {
	from := max(0, at-maxStmHeadLen)
	k := bytes.LastIndex(data[from:at], []byte("obj"))
	if k < 0 {
		return 0, nil, false
	}
	head := from + k // "obj" of "N G obj"
	end := bytes.Index(data[at:min(len(data), at+maxStmHeadLen)], []byte("endobj"))
	if end < 0 || bytes.Contains(data[head+3:at], []byte("endobj")) {
		return 0, nil, false
	}
	// the two numbers before "obj"
	j := head
	for j > from && (data[j-1] == ' ' || data[j-1] == '\r' || data[j-1] == '\n') {
		j--
	}
	for j > from && data[j-1] >= '0' && data[j-1] <= '9' {
		j--
	}
	for j > from && (data[j-1] == ' ' || data[j-1] == '\r' || data[j-1] == '\n') {
		j--
	}
	e := j
	for j > from && data[j-1] >= '0' && data[j-1] <= '9' {
		j--
	}
	if j == e {
		return 0, nil, false
	}
	num, err := strconv.Atoi(string(data[j:e]))
	return num, data[head+3 : at+end], err == nil
}
