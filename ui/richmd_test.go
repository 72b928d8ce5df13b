package ui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/")

// mdCases are replies that Fyne's own Markdown path showed changed.
var mdCases = []struct{ name, src string }{
	{"punctuation", "Hello! What a *lovely* day! Is it **really**? Yes: `x`, [a link](https://example.com/a)."},
	{"soft_break", "It was fun.\nAs she walked, the bird sang!\nLine two."},
	{"hard_and_paragraph", "Line one!  \nLine two\\\nLine three.\n\nNew paragraph."},
	{"poem", "Roses are red,\nViolets are blue;\n*Sugar* is sweet —\nand so are **you**!"},
	{"cjk_emoji", "你好，世界！**粗体**。\n日本語の文章です。😀 Done! 🎉"},
	{"nested_list", "1. First **one**\n2. Second\n   - inner *a*\n   - inner b\n     1. deep\n3. Third!"},
	{"loose_list", "- one\n\n- two\n  still two\n\n- three"},
	{"code", "Call `fmt.Println(\"hi\")` now!\n\n    indented code\n    block"},
	{"table", "| Name | Size |\n|:-----|-----:|\n| *tiny* | 50 MB |\n| base | 1 GB |"},
	{"math", "Euler: $e^{i\\pi} + 1 = 0$ and $a_1 * b_1$, costs $5 and $10.\n\\[ x = \\frac{a}{b} \\]"},
	{"html_and_escapes", "Use Vec<String> & a <b>tag</b>; 5 < 6, \\*not emphasis\\*, &amp; &#35;."},
	{"heading_quote", "## Plan *now*!\n\n> quoted **text**\n> next line\n\n---\n\nEnd."},
	{"emphasis_punct", "**Note**: done. *Why*? _Because_! ***Both***."},
}

// dumpSegments writes segments one per line: kind, style flags and the text quoted.
func dumpSegments(b *strings.Builder, segs []widget.RichTextSegment, indent string) {
	for _, s := range segs {
		switch s := s.(type) {
		case *widget.TextSegment:
			var flags []string
			if !s.Style.Inline {
				flags = append(flags, "block")
			}
			if s.Style.TextStyle.Bold {
				flags = append(flags, "bold")
			}
			if s.Style.TextStyle.Italic {
				flags = append(flags, "italic")
			}
			if s.Style.TextStyle.Monospace {
				flags = append(flags, "mono")
			}
			if s.Style.SizeName != "" && s.Style.SizeName != widget.RichTextStyleInline.SizeName {
				flags = append(flags, string(s.Style.SizeName))
			}
			fmt.Fprintf(b, "%stext [%s] %q\n", indent, strings.Join(flags, " "), s.Text)
		case *widget.HyperlinkSegment:
			fmt.Fprintf(b, "%slink %q -> %s\n", indent, s.Text, s.URL)
		case *widget.ParagraphSegment:
			fmt.Fprintf(b, "%sparagraph\n", indent)
			dumpSegments(b, s.Texts, indent+"  ")
		case *widget.SeparatorSegment:
			fmt.Fprintf(b, "%sseparator\n", indent)
		case *tableSegment:
			fmt.Fprintf(b, "%stable header=%v align=%v\n", indent, s.header, s.align)
			for _, r := range s.rows {
				fmt.Fprintf(b, "%s  %q\n", indent, r)
			}
		default:
			fmt.Fprintf(b, "%s%T\n", indent, s)
		}
	}
}

// TestMarkdownSegmentsGolden compares the segments of each case with testdata/markdown/NAME.golden
// (go test ./ui -run MarkdownSegmentsGolden -update rewrites them).
func TestMarkdownSegmentsGolden(t *testing.T) {
	for _, tc := range mdCases {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			fmt.Fprintf(&b, "source: %q\n", tc.src)
			dumpSegments(&b, markdownSegments(tc.src), "")
			path := filepath.Join("testdata", "markdown", tc.name+".golden")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("segments of %q (-want +got):\n%s", tc.src, diff)
			}
		})
	}
}

// TestMarkdownKeepsText checks what matters whatever the golden files say: the text shown,
// read back from the segments, is the source without its markup; nothing is added before
// punctuation and every line break of the source is a line break.
func TestMarkdownKeepsText(t *testing.T) {
	tests := []struct{ src, want string }{
		{"Hello! What", "Hello! What"},
		{"bird!", "bird!"},
		{"Line one!\nLine two.", "Line one!\nLine two."},
		{"fun.\nAs she", "fun.\nAs she"},
		{"a *b*! c **d**, [e](http://x.org)?", "a b! c d, e?"},
		{"See <https://example.com>!", "See https://example.com!"},
		{"x<y> & z", "x<y> & z"},
		{"$a_1 * b_2$ \\(c_1\\)", "$a_1 * b_2$ \\(c_1\\)"},
		{"你好！**世界**。", "你好！世界。"},
		{"😀!", "😀!"},
	}
	for _, tt := range tests {
		if got := shownText(markdownSegments(tt.src)); got != tt.want {
			t.Errorf("markdownSegments(%q) shows %q, want %q", tt.src, got, tt.want)
		}
	}
}

// shownText joins the text of segments, a block segment ending its line.
func shownText(segs []widget.RichTextSegment) string {
	var b strings.Builder
	writeShown(&b, segs)
	return strings.TrimRight(b.String(), "\n")
}

func writeShown(b *strings.Builder, segs []widget.RichTextSegment) {
	for _, s := range segs {
		switch s := s.(type) {
		case *widget.ParagraphSegment:
			writeShown(b, s.Texts)
		case *widget.HyperlinkSegment:
			b.WriteString(s.Text)
		default:
			b.WriteString(s.Textual())
			if !s.Inline() && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte('\n')
			}
		}
	}
}

// TestMarkdownWrapKeepsWords lays every case out at many widths and reads the rows back
// from the drawn texts: each row's words must be whole words of the source and no row may be
// wider than the text (Fyne's own wrap broke a segment that started mid-row inside its first
// word: "**Both**." showed "B", "o", "t", "h.").
func TestMarkdownWrapKeepsWords(t *testing.T) {
	test.NewTempApp(t)
	for _, tc := range mdCases {
		if tc.name == "table" {
			continue // cells are labels
		}
		segs := markdownSegments(tc.src)
		words := map[string]bool{}
		for _, w := range strings.Fields(shownText(segs)) {
			words[w] = true
		}
		wt := newWrapText(segs)
		w := test.NewTempWindow(t, wt)
		for width := float32(150); width <= 480; width += 7 {
			w.Resize(fyne.NewSize(width+2*theme.Padding(), 900))
			for _, row := range drawnRows(wt.rt) {
				if row.right > width+1 {
					t.Errorf("%s at width %.0f: row %q ends at %.0f", tc.name, width, row.text, row.right)
				}
				for _, word := range strings.Fields(row.text) {
					if !words[word] && !pieceOfWord(word, words, width-2*theme.InnerPadding()-1) {
						t.Errorf("%s at width %.0f: row %q shows %q, not a word of the source", tc.name, width, row.text, word)
					}
				}
			}
		}
	}
}

// pieceOfWord allows the pieces of CJK text (a row breaks between any two wide characters)
// and of a word wider than a row.
func pieceOfWord(piece string, words map[string]bool, width float32) bool {
	for w := range words {
		if !strings.Contains(w, piece) {
			continue
		}
		if fyne.MeasureText(w, theme.TextSize(), fyne.TextStyle{Monospace: true}).Width > width {
			return true
		}
		for _, r := range w {
			if isWide(r) {
				return true
			}
		}
	}
	return false
}

type drawnRow struct {
	text  string
	right float32
}

// drawnRows reads a laid-out RichText's texts back, joined per row in X order.
func drawnRows(rt *widget.RichText) []drawnRow {
	type piece struct {
		pos  fyne.Position
		size fyne.Size
		text string
	}
	var ps []piece
	for _, o := range test.WidgetRenderer(rt).Objects() {
		switch o := o.(type) {
		case *canvas.Text:
			ps = append(ps, piece{o.Position(), o.MinSize(), o.Text})
		case *fyne.Container:
			if l, ok := o.Objects[len(o.Objects)-1].(*menuLink); ok {
				ps = append(ps, piece{o.Position(), o.MinSize(), l.Text})
			}
		}
	}
	// Texts of one row differ in Y by their baselines only; a new row is a line lower.
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].pos.Y < ps[j].pos.Y })
	var rows [][]piece
	for _, p := range ps {
		if n := len(rows); n > 0 && p.pos.Y-rows[n-1][0].pos.Y < 8 {
			rows[n-1] = append(rows[n-1], p)
			continue
		}
		rows = append(rows, []piece{p})
	}
	out := make([]drawnRow, len(rows))
	for i, r := range rows {
		sort.SliceStable(r, func(a, b int) bool { return r[a].pos.X < r[b].pos.X })
		for _, p := range r {
			out[i].text += p.text
			out[i].right = max(out[i].right, p.pos.X+p.size.Width-theme.InnerPadding())
		}
	}
	return out
}

// Streaming a reply a few bytes at a time (as the coalesced stream updates do) settles the
// same blocks, so the same segments, as rendering the whole saved reply.
func TestStreamedRepliesRenderAsSaved(t *testing.T) {
	var all strings.Builder
	for _, tc := range mdCases {
		all.WriteString(tc.src + "\n\n")
	}
	doc := all.String() + "```go\nfmt.Println(\"x\")\n```\nAfter the code!\nNext line."
	for _, step := range []int{1, 3, 7} {
		d := newDocVM("")
		for i := 0; i < len(doc); i += step {
			d.Append(doc[i:min(i+step, len(doc))])
		}
		d.Close()
		want := SplitMarkdown(doc)
		if n := get[int](d.Settled); n != len(want) {
			t.Fatalf("step %d: %d blocks settled, want %d", step, n, len(want))
		}
		for i := range want {
			got := d.Block(i)
			if got != want[i] {
				t.Errorf("step %d: block %d = %+v, want %+v", step, i, got, want[i])
				continue
			}
			var gb, wb strings.Builder
			dumpSegments(&gb, markdownSegments(got.Text), "")
			dumpSegments(&wb, markdownSegments(want[i].Text), "")
			if gb.String() != wb.String() {
				t.Errorf("step %d: block %d renders differently", step, i)
			}
		}
	}
}

// FuzzMarkdown renders any text and wraps it at any width: nothing panics, and the wrapped
// segments show the same characters as the unwrapped ones (wrapping only turns spaces into
// line breaks or adds line breaks).
func FuzzMarkdown(f *testing.F) {
	for _, tc := range mdCases {
		f.Add(tc.src, uint8(40))
	}
	f.Add("$$\na\n$$ \\( x \\) $5 $", uint8(3))
	f.Fuzz(func(t *testing.T, src string, width uint8) {
		segs := markdownSegments(src)
		w := &wrapper{width: float32(width) + 1, measure: func(s string, _ widget.RichTextStyle) float32 {
			return 7 * float32(len([]rune(s)))
		}}
		wrapped := w.segments(segs)
		strip := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if a, b := strip(shownText(segs)), strip(shownText(wrapped)); a != b {
			t.Errorf("wrapping changed the text of %q:\n%q\n%q", src, a, b)
		}
	})
}
