package pdftext

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// anyRedrawn says, comparing every glyph with every earlier one, whether a glyph of frags
// is the same drawing as an earlier one.
func anyRedrawn(frags []*line) bool {
	var gs []*glyph
	for _, l := range frags {
		for i := range l.g {
			gs = append(gs, &l.g[i])
		}
	}
	for i, g := range gs {
		for _, o := range gs[:i] {
			if redrawable(o) && redrawable(g) && sameDrawing(o, g) {
				return true
			}
		}
	}
	return false
}

// crowdedGlyphs is a page of glyphs crowded into a few lines, a few letters and sizes, with
// spaces, glyphs without advance, copies a little off and now and then a place or size at
// infinity or NaN.
func crowdedGlyphs(r *rand.Rand) []glyph {
	texts := []string{"a", "b", "é", "\u0301", " "}
	sizes := []float32{10, 10.5, 12, 0}
	odd := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	step := []float32{0.3, 1.5, 5}[r.IntN(3)]
	gs := make([]glyph, 1+r.IntN(40))
	for i := range gs {
		g := glyph{
			x:    72 + step*float32(r.IntN(16)) + float32(r.NormFloat64()*0.3),
			y:    700 - 12*float32(r.IntN(3)) + float32(r.NormFloat64()*1.5),
			w:    []float32{5, 5, 1, 0}[r.IntN(4)],
			size: sizes[r.IntN(len(sizes))],
			text: texts[r.IntN(len(texts))],
		}
		g.space = g.text == " "
		if r.IntN(50) == 0 {
			*[]*float32{&g.x, &g.y, &g.size}[r.IntN(3)] = odd[r.IntN(len(odd))]
		}
		if i > 0 && r.IntN(4) == 0 { // a copy of an earlier glyph, a little off
			g = gs[r.IntN(i)]
			g.x += float32(r.NormFloat64()) * 0.06 * g.size
			g.y += float32(r.NormFloat64()) * 0.12 * g.size
		}
		gs[i] = g
	}
	return gs
}

func TestMayRedraw(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 1))
	var redrawn, clean int
	for range 20_000 {
		frags := fragments(crowdedGlyphs(r))
		want := anyRedrawn(frags)
		if want && !mayRedraw(frags) {
			t.Fatalf("mayRedraw says no of a page with a glyph drawn again:\n%s", dumpLines(frags))
		}
		if want {
			redrawn++
		} else if !mayRedraw(frags) {
			clean++
		}
		got, all := dropRedrawn(slices.Clone(frags)), dropCopies(slices.Clone(frags))
		if !sameLines(got, all) {
			t.Fatalf("dropRedrawn read\n%s\ndropCopies\n%s", dumpLines(got), dumpLines(all))
		}
	}
	t.Logf("%d pages with glyphs drawn again, %d without that mayRedraw passed", redrawn, clean)
	if redrawn < 1000 || clean < 1000 {
		t.Errorf("%d pages with glyphs drawn again, %d without that mayRedraw passed: too few to tell", redrawn, clean)
	}
}

// sameLines says whether a and b hold the same glyphs, bit for bit, in the same lines.
func sameLines(a, b []*line) bool {
	return slices.EqualFunc(a, b, func(x, y *line) bool {
		return x.rtl == y.rtl && slices.EqualFunc(x.g, y.g, func(g, h glyph) bool {
			return g.text == h.text && math.Float32bits(g.x) == math.Float32bits(h.x) &&
				math.Float32bits(g.y) == math.Float32bits(h.y) && math.Float32bits(g.size) == math.Float32bits(h.size)
		})
	})
}

func dumpLines(ls []*line) string {
	s := ""
	for _, l := range ls {
		s += fmt.Sprintf("%+v\n", *l)
	}
	return s
}

// benchPage is a page of 45 lines of 70 glyphs, each line drawn copies times a third of a
// point apart (Quartz's fake bold draws 4).
func benchPage(copies int) []glyph {
	var gs []glyph
	for row := range 45 {
		for c := range copies {
			for col := range 70 {
				gs = append(gs, glyph{x: 72 + float32(c)/3 + 6*float32(col), y: 700 - 14*float32(row),
					w: 6, size: 11, text: string(rune('a' + (row+col)%26))})
			}
		}
	}
	return gs
}

func BenchmarkDropRedrawn(b *testing.B) {
	for _, copies := range []int{1, 4} {
		frags := fragments(benchPage(copies))
		b.Run(fmt.Sprintf("copies=%d", copies), func(b *testing.B) {
			buf := make([]*line, len(frags))
			for b.Loop() {
				copy(buf, frags)
				dropRedrawn(buf)
			}
		})
	}
}
