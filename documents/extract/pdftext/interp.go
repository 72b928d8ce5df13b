package pdftext

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/ledongthuc/pdf"
)

// matrix is a PDF transformation [a b c d e f]: x' = a·x + c·y + e, y' = b·x + d·y + f.
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul is m then n (the PDF order: m × n).
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func matrixOf(ops []operand) (matrix, bool) {
	if len(ops) < 6 {
		return identity, false
	}
	var m matrix
	for i := range m {
		m[i] = ops[len(ops)-6+i].num
	}
	return m, true
}

// gstate is the part of the graphics state that places text.
type gstate struct {
	ctm   matrix
	font  *font
	size  float64 // Tfs
	char  float64 // Tc
	word  float64 // Tw
	scale float64 // Tz / 100
	lead  float64 // TL
	rise  float64 // Ts
}

// glyph is one character drawn, in the page's space turned so its text runs along +x.
type glyph struct {
	x, y, w, size float32 // origin, advance and font size
	rot           uint8   // 0–3: quarter turns of the text direction; slantRot: slanted (slant.go)
	angle         int16   // a slanted glyph's direction in whole degrees, 0–359 (slant.go)
	space         bool    // a space character (a word break in itself)
	takenBack     bool    // a space the next TJ adjustment moved back over (layout.go's roomless)
	actual        bool    // the text of an ActualText span, placed where its first glyph is
	loose         bool    // the font's widths are guessed: gaps are less sure
	onBase        bool    // a right-to-left mark placed right after its letter (marks.go)
	inked         bool    // a mark drawn without advance, x moved to its ink's middle (ink.go)
	pair          bool    // one character read from two glyphs: TeX's ↦ (layout.go's mapsTo)
	// order is where a legacy Devanagari font draws the glyph relative to the text
	// (indic.go): in order, or before or after the letters it follows or precedes.
	order uint8
	text  string
	// key is where the glyph sorts along its line (layout.go): its x, or for a glyph drawn
	// without advance right after another (a Devanagari vowel sign or reph, which XeTeX
	// draws in logical order, a hair past the next letter's origin), that glyph's key.
	key float32
	// seq is the glyph's place in the order drawn on its page (marks.go).
	seq int32
}

// Bounds of drawing one page.
const (
	maxNesting  = 32      // arrays and dictionaries in a content stream
	maxForms    = 16      // forms drawn inside forms
	maxGlyphs   = 500_000 // characters on one page
	maxStack    = 1024    // operands before an operator; q without Q
	checkEveryN = 1 << 14 // operators between looks at the budgets
)

var (
	errNesting = fmt.Errorf("%w: its content nests too deep", ErrDamaged)
	errGlyphs  = fmt.Errorf("%w: a page holds more than %d characters", ErrTooBig, maxGlyphs)
)

// page draws one page's content (and the forms it draws) into glyphs.
type page struct {
	doc    *reader
	gs     gstate
	saved  []gstate
	tm     matrix // text matrix
	tlm    matrix // text line matrix
	glyphs []glyph
	verts  []vertGlyph  // the glyphs drawn in vertical writing mode (vertical.go)
	forms  []string     // the forms being drawn, outermost first (a form may not draw itself)
	marked []markedSpan // open marked-content spans (actualtext.go)
	box    pageBox      // glyphs wholly outside are dropped (pagebox.go)
	ops    int
	// single says the string being shown is one glyph: drawn mirrored, it is a letter
	// reflected in its line (add), where a mirrored string reads in the order drawn
	single bool
	// inArray says the string being shown is one of several strings of a TJ array: a
	// one-glyph string there is a letter of a mirrored line drawn glyph by glyph with
	// its kerning between (Ghostscript's text turned and mirrored: pdfplumber's
	// issue-848.pdf), not a letter reflected on its own
	inArray bool
	// visible is the page's visible area; cover the share of it images cover (cover.go).
	visible [4]float64
	cover   float64
}

// resources are a content stream's named fonts and forms, looked up once each.
type resources struct {
	v            pdf.Value
	fonts, forms pdf.Value
	fontRefs     map[string]string // name → "12 0 R"
	looked       bool
}

func (rs *resources) look() {
	if !rs.looked {
		rs.looked = true
		rs.fonts, rs.forms = rs.v.Key("Font"), rs.v.Key("XObject")
		rs.fontRefs = refsOf(rs.fonts)
	}
}

// refPattern finds "/Name 12 0 R" in a dictionary as the object reader prints it.
var refPattern = regexp.MustCompile(`/([^\s/<>\[\]()]+) (\d+ \d+ R)`)

// refsOf maps the names of a dictionary to the objects they refer to, so that objects can be
// cached by reference instead of being read again for every use.
func refsOf(v pdf.Value) map[string]string {
	out := map[string]string{}
	if v.Kind() != pdf.Dict {
		return out
	}
	for _, m := range refPattern.FindAllStringSubmatch(v.String(), 10_000) {
		out[m[1]] = m[2]
	}
	return out
}

// font is the font called name in these resources.
func (rs *resources) font(doc *reader, name string) *font {
	rs.look()
	if ref, ok := rs.fontRefs[name]; ok {
		if f, ok := doc.fonts[ref]; ok {
			return f
		}
		f := doc.font(rs.fontEntry(name))
		doc.fonts[ref] = f
		return f
	}
	return doc.font(rs.fontEntry(name))
}

// fontEntry is the font dictionary called name, null when the object reader cannot read
// the object it refers to (pdf-rs's crash-121-2.pdf: "/Encoding 30 0`R" inside a font's
// dictionary): the text shown in it is read with the fallback font, and the page's other
// text stands, as pdftotext reads it; the whole page was lost.
func (rs *resources) fontEntry(name string) (v pdf.Value) {
	defer func() {
		if p := recover(); p != nil {
			v = pdf.Value{}
		}
	}()
	return rs.fonts.Key(name)
}

// run interprets content with resources res.
func (p *page) run(content []byte, res pdf.Value) error {
	rs := &resources{v: res}
	l := &lexer{data: content}
	var stack []operand
	for {
		var op operand
		kw, isOp, ok := l.next(&op)
		if !ok {
			return nil
		}
		if !isOp {
			if len(stack) < maxStack {
				stack = append(stack, op)
			}
			continue
		}
		if p.ops++; p.ops%checkEveryN == 0 {
			if err := p.doc.alive(); err != nil {
				return err
			}
		}
		if err := p.do(kw, stack, rs, l); err != nil {
			return err
		}
		stack = stack[:0]
	}
}

// do runs one operator on its operands.
func (p *page) do(op string, args []operand, rs *resources, l *lexer) error {
	g := &p.gs
	num := func(i int) float64 { // the i-th of the operator's n operands, counted from the end
		if i < len(args) {
			return args[len(args)-1-i].num
		}
		return 0
	}
	switch op {
	case "q":
		if len(p.saved) < maxStack {
			p.saved = append(p.saved, *g)
		}
	case "Q":
		if n := len(p.saved); n > 0 {
			*g = p.saved[n-1]
			p.saved = p.saved[:n-1]
		}
	case "cm":
		if m, ok := matrixOf(args); ok {
			g.ctm = m.mul(g.ctm)
		}
	case "BT":
		p.tm, p.tlm = identity, identity
	case "Tc":
		g.char = num(0)
	case "Tw":
		g.word = num(0)
	case "Tz":
		g.scale = num(0) / 100
	case "TL":
		g.lead = num(0)
	case "Ts":
		g.rise = num(0)
	case "Tf":
		g.size = num(0)
		if len(args) >= 2 && args[len(args)-2].kind == kName {
			g.font = rs.font(p.doc, args[len(args)-2].str)
		}
	case "Td":
		p.moveLine(num(1), num(0))
	case "TD":
		g.lead = -num(0)
		p.moveLine(num(1), num(0))
	case "Tm":
		if m, ok := matrixOf(args); ok {
			p.tm, p.tlm = m, m
		}
	case "T*":
		p.moveLine(0, -g.lead)
	case "Tj":
		return p.showArg(args)
	case "'":
		p.moveLine(0, -g.lead)
		return p.showArg(args)
	case "\"":
		if len(args) >= 3 {
			g.word, g.char = args[len(args)-3].num, args[len(args)-2].num
		}
		p.moveLine(0, -g.lead)
		return p.showArg(args)
	case "TJ":
		if len(args) == 0 || args[len(args)-1].kind != kArray {
			return nil
		}
		shown := -1 // the glyph the last string drew last
		strs := 0
		for _, a := range args[len(args)-1].arr {
			if a.kind == kString && a.str != "" {
				strs++
			}
		}
		p.inArray = strs > 1
		defer func() { p.inArray = false }()
		for _, a := range args[len(args)-1].arr {
			switch a.kind {
			case kString:
				before := len(p.glyphs)
				if err := p.show(a.str); err != nil {
					return err
				}
				shown = -1
				if len(p.glyphs) > before {
					shown = len(p.glyphs) - 1
				}
			case kNum:
				if g.font != nil && g.font.vert != nil { // vertical mode: the adjustment moves down
					p.tm = matrix{1, 0, 0, 1, 0, -a.num / 1000 * g.size}.mul(p.tm)
					continue
				}
				back := a.num / 1000 * g.size * g.scale
				if shown >= 0 && p.glyphs[shown].space && float32(back) >= 0.75*p.glyphs[shown].w {
					p.glyphs[shown].takenBack = true
				}
				shown = -1
				p.advance(-back)
			}
		}
	case "Do":
		if len(args) > 0 && args[len(args)-1].kind == kName {
			rs.look()
			form := rs.forms.Key(args[len(args)-1].str)
			if p.doc.hidden(form.Key("OC")) {
				return nil // a layer turned off (optional.go)
			}
			return p.drawForm(form, rs.v)
		}
	case "BDC", "BMC":
		p.beginMarked(op, args, rs)
	case "EMC":
		return p.endMarked()
	case "ID":
		return p.inlineImage(args, rs, l) // inlineimage.go
	}
	return nil
}

func (p *page) moveLine(tx, ty float64) {
	p.tlm = matrix{1, 0, 0, 1, tx, ty}.mul(p.tlm)
	p.tm = p.tlm
}

func (p *page) advance(tx float64) {
	p.tm = matrix{1, 0, 0, 1, tx, 0}.mul(p.tm)
}

func (p *page) showArg(args []operand) error {
	if len(args) == 0 || args[len(args)-1].kind != kString {
		return nil
	}
	return p.show(args[len(args)-1].str)
}

// show draws the string s with the current font: one glyph per character code.
func (p *page) show(s string) error {
	g := &p.gs
	f := g.font
	if f == nil {
		f = p.doc.fallbackFont()
	}
	var err error
	p.single = !p.inArray && (len(s) == 1 || !f.simple && len(s) == 2)
	f.each(s, func(code uint32, n int, text string, w float64) {
		if err != nil {
			return
		}
		trm := matrix{g.size * g.scale, 0, 0, g.size, 0, g.rise}.mul(p.tm).mul(g.ctm)
		if f.vert != nil { // vertical writing mode (vertical.go)
			var ty float64
			ty, err = p.showVertical(trm, f, code, n, cleanText(text), w)
			p.tm = matrix{1, 0, 0, 1, 0, ty}.mul(p.tm)
			return
		}
		adv := w*g.size + g.char
		if n == 1 && code == 32 {
			adv += g.word
		}
		adv *= g.scale
		// A glyph without text still counts inside an ActualText span (actualtext.go).
		if text = cleanText(text); text != "" || len(p.marked) > 0 && p.inActual() {
			before := len(p.glyphs)
			inked := false
			if w == 0 && rtlMark(text) {
				var mid float64
				if mid, inked = f.inkMiddle(code); inked { // a mark stands where its ink is (ink.go)
					trm[4], trm[5] = trm[4]+mid*trm[0], trm[5]+mid*trm[1]
				}
			}
			err = p.add(trm, w*g.size*g.scale, f, text)
			if inked && len(p.glyphs) > before {
				p.glyphs[before].inked = true
			}
			if f.order != nil && n == 1 && len(p.glyphs) > before {
				p.glyphs[before].order = f.order[code]
			}
		} else if f.simple && (code != 0 || !f.notdefZero) || f.rest {
			// (a composite font's glyph of a cluster left out of its ToUnicode map:
			// unmapped.go). A simple font's code 0 that names no glyph is no ligature but
			// .notdef, which PDFlib 5 draws after every string: widened over, the glyph
			// before it reached over the next string, which then read as a line of its own.
			p.widen(trm, w*g.size*g.scale, f)
		}
		p.advance(adv)
	})
	return err
}

// add records a glyph drawn at trm's origin whose advance is w in text space.
func (p *page) add(trm matrix, w float64, f *font, text string) error {
	if len(p.glyphs) >= maxGlyphs {
		return errGlyphs
	}
	if p.inHidden() {
		return nil // a layer turned off (optional.go)
	}
	if p.outside(trm, w) {
		return nil // off the page, as pdftotext drops it (pagebox.go)
	}
	// The text direction and the glyph's height in page space.
	dx, dy := trm[0], trm[1]
	size := math.Hypot(trm[2], trm[3]) * f.em()
	rot, angle, x, y := place(trm, f.type3)
	scale := math.Hypot(dx, dy)
	if g := p.gs; g.size != 0 && g.scale != 0 {
		scale /= math.Abs(g.size * g.scale)
	}
	if p.single && mirrored(trm) {
		// a glyph drawn mirrored in an upright line (\reflectbox: the E of the XeLaTeX
		// logo) stands left of its origin, in the line, not in a line of its own running
		// backwards; a string drawn mirrored stays such a line, read in the order drawn
		rot, angle, x, y = 0, 0, trm[4]-w*scale, trm[5]
	}
	g := glyph{
		// the advance as a length: a negative font size or horizontal scale turns the text
		// half a turn (rot), it does not make each glyph end before it starts (pdf.js's
		// issue14415.pdf, "-15 Tf": its words read as letters apart)
		x: float32(x), y: float32(y), w: float32(math.Abs(w * scale)), size: float32(size),
		rot: rot, angle: angle, space: strings.TrimSpace(text) == "", loose: f.guessed, text: text,
		seq: int32(len(p.glyphs)),
	}
	if len(p.marked) > 0 && p.inActual() {
		p.swallow(g)
		return nil
	}
	p.glyphs = append(p.glyphs, g)
	return nil
}

// widen lets the glyph before one drawn without text (a ligature of a font that does not
// say what it spells) reach over it, so that the gap it fills does not part a word: "e?ectively"
// reads "eectively", as pdftotext reads it, not "e ectively".
func (p *page) widen(trm matrix, w float64, f *font) {
	w = math.Abs(w) // a negative size or scale turns the text, its advance stays a length
	if len(p.glyphs) == 0 || w == 0 {
		return
	}
	last := &p.glyphs[len(p.glyphs)-1]
	rot, angle, x, y := place(trm, f.type3)
	scale := math.Hypot(trm[0], trm[1])
	if g := p.gs; g.size != 0 && g.scale != 0 {
		scale /= math.Abs(g.size * g.scale)
	}
	end, tol := last.x+last.w, 0.05*float64(last.size)
	if last.space || last.rot != rot || last.angle != angle || math.Abs(y-float64(last.y)) > tol || math.Abs(x-float64(end)) > tol {
		return
	}
	if reach := float32(x+w*scale) - last.x; reach > last.w {
		last.w = reach
	}
}

// mirrored says whether trm draws glyphs mirrored left to right and upright: advancing
// to the left (dx < 0), their up still up (d > 0), as a reflection does and no turn does.
func mirrored(trm matrix) bool {
	a, b, c, d := trm[0], trm[1], trm[2], trm[3]
	return a < 0 && math.Abs(a) >= math.Abs(b) && d > 0 && math.Abs(d) >= math.Abs(c) && a*d-b*c < 0
}

// turns is the quarter turns (0–3) of text running along (dx, dy).
func turns(dx, dy float64) uint8 {
	switch {
	case math.Abs(dx) >= math.Abs(dy) && dx >= 0:
		return 0
	case math.Abs(dx) < math.Abs(dy) && dy > 0:
		return 1
	case math.Abs(dx) >= math.Abs(dy):
		return 2
	}
	return 3
}

// turn maps a point so that text of direction rot runs along +x with lines going down.
func turn(rot uint8, x, y float64) (float64, float64) {
	switch rot {
	case 1:
		return y, -x
	case 2:
		return -x, -y
	case 3:
		return -y, x
	}
	return x, y
}

// drawForm draws a form XObject (images and others draw no text).
func (p *page) drawForm(x, res pdf.Value) error {
	if x.Kind() == pdf.Stream && x.Key("Subtype").Name() == "Image" {
		p.coverImage(x) // cover.go
		if p.doc.opt.images != nil {
			return p.drawImage(x) // images.go
		}
		return nil
	}
	if x.Kind() != pdf.Stream || x.Key("Subtype").Name() != "Form" {
		return nil
	}
	return p.runForm(x, res)
}

// runForm draws the content of a form XObject, or of an annotation's appearance stream,
// which is one whether or not its dictionary says so (/Subtype /Form is often left out of
// appearances: poppler, like Acrobat, draws them all).
func (p *page) runForm(x, res pdf.Value) error {
	key := x.String()
	for _, open := range p.forms {
		if open == key {
			return nil // a form that draws itself
		}
	}
	if len(p.forms) >= maxForms {
		return nil
	}
	content, err := p.doc.stream(x, "a form")
	if err != nil {
		if errors.Is(err, ErrTooBig) || errors.Is(err, errStopped) {
			return err
		}
		return nil // an unreadable form loses its own text only
	}
	saved, tm, tlm := p.gs, p.tm, p.tlm
	if m, ok := arrayMatrix(x.Key("Matrix")); ok {
		p.gs.ctm = m.mul(p.gs.ctm)
	}
	if r := x.Key("Resources"); r.Kind() == pdf.Dict {
		res = r
	}
	p.forms = append(p.forms, key)
	err = p.run(content, res)
	p.forms = p.forms[:len(p.forms)-1]
	p.gs, p.tm, p.tlm = saved, tm, tlm
	return err
}

func arrayMatrix(v pdf.Value) (matrix, bool) {
	if v.Kind() != pdf.Array || v.Len() != 6 {
		return identity, false
	}
	var m matrix
	for i := range m {
		m[i] = v.Index(i).Float64()
	}
	return m, true
}
