package extract

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// odfListStyle is a list style's levels 1–10 (text:list-style, in content.xml's automatic
// styles or styles.xml's): a bullet or a number format with what stands before and after
// it, how many levels' numbers the label shows and where the count starts.
type odfListStyle [10]*odfListLevel

type odfListLevel struct {
	bullet                 bool
	format, prefix, suffix string
	display, start         int
}

// odfListStyles reads list styles: text:list-style elements, whose levels follow, the
// heading numbering (text:outline-style, outline.go) and the paragraph styles' list styles.
type odfListStyles struct {
	styles  map[string]*odfListStyle
	cur     *odfListStyle
	outline *odfListStyle
	paras   map[string]odfParaStyle
}

// element takes one start element of a styles part.
func (s *odfListStyles) element(t xml.StartElement) {
	switch t.Name.Local {
	case "list-style", "outline-style":
		s.cur = &odfListStyle{}
		if s.styles == nil {
			s.styles = map[string]*odfListStyle{}
		}
		if name := attr(t, "name"); name != "" || t.Name.Local == "list-style" {
			s.styles[name] = s.cur
		}
		if t.Name.Local == "outline-style" {
			s.outline = s.cur
		}
	case "style":
		s.paraStyle(t)
	case "list-level-style-number", "list-level-style-bullet", "list-level-style-image", "outline-level-style":
		n, err := strconv.Atoi(attr(t, "level"))
		if s.cur == nil || err != nil || n < 1 || n > 10 {
			return
		}
		number := t.Name.Local == "list-level-style-number" || t.Name.Local == "outline-level-style"
		l := &odfListLevel{bullet: !number, format: attr(t, "num-format"),
			prefix: attr(t, "num-prefix"), suffix: attr(t, "num-suffix"), display: 1, start: 1}
		if d, err := strconv.Atoi(attr(t, "display-levels")); err == nil && d >= 1 {
			l.display = min(d, n)
		}
		if v, ok := startValue(t); ok {
			l.start = v
		}
		s.cur[n-1] = l
	}
}

// end takes one end element of a styles part.
func (s *odfListStyles) end(t xml.EndElement) {
	if t.Name.Local == "list-style" || t.Name.Local == "outline-style" {
		s.cur = nil
	}
}

// odfCount is a list's counters, which a later list may continue.
type odfCount struct {
	n    [10]int
	used [10]bool
}

// odfList is an open text:list: its style (its own or the list's around it) and counters.
type odfList struct {
	style string
	count *odfCount
}

// odfItem is an open text:list-item or text:list-header: whether its first paragraph,
// which takes the label, is still to come, and how many paragraphs were open around it.
type odfItem struct {
	first, header bool
	start         int // text:start-value, -1: none
	paras         int
}

// odfLists counts an ODF document's list items as LibreOffice numbers them: a list's
// levels are its nesting, its style the nearest list's text:style-name; a list starts
// counting afresh unless it continues the last list of its style (text:continue-numbering)
// or the one it names (text:continue-list); an item's text:start-value sets its number, a
// list header has none; an item of a level starts the levels below it again.
type odfLists struct {
	styles  odfListStyles
	open    []*odfList
	items   []*odfItem
	byStyle map[string]*odfCount
	byID    map[string]*odfCount
	// outline counts the headings that the heading numbering numbers (odfoutline.go).
	outline odfCount
}

func (l *odfLists) startList(t xml.StartElement) {
	list := &odfList{style: attr(t, "style-name")}
	if n := len(l.open); n > 0 {
		if list.style == "" {
			list.style = l.open[n-1].style
		}
		list.count = l.open[n-1].count
	} else {
		if l.byStyle == nil {
			l.byStyle, l.byID = map[string]*odfCount{}, map[string]*odfCount{}
		}
		switch {
		case l.byID[attr(t, "continue-list")] != nil:
			list.count = l.byID[attr(t, "continue-list")]
		case attr(t, "continue-numbering") == "true" && l.byStyle[list.style] != nil:
			list.count = l.byStyle[list.style]
		default:
			list.count = &odfCount{}
		}
		l.byStyle[list.style] = list.count
		if id := attr(t, "id"); id != "" {
			l.byID[id] = list.count
		}
	}
	if n := len(l.items); n > 0 {
		l.items[n-1].first = false // an item that opens with a list has no label of its own
	}
	l.open = append(l.open, list)
}

func (l *odfLists) endList() {
	if n := len(l.open); n > 0 {
		l.open = l.open[:n-1]
	}
}

func (l *odfLists) startItem(t xml.StartElement, paras int) {
	item := &odfItem{first: true, header: t.Name.Local == "list-header", start: -1, paras: paras}
	if v, err := strconv.Atoi(attr(t, "start-value")); err == nil {
		item.start = v
	}
	l.items = append(l.items, item)
}

func (l *odfLists) endItem() {
	if n := len(l.items); n > 0 {
		l.items = l.items[:n-1]
	}
}

// label counts a paragraph that begins when paras paragraphs are open and returns the
// label drawn before it: "" unless it is its list item's first.
func (l *odfLists) label(paras int) string {
	ni, nl := len(l.items), len(l.open)
	if ni == 0 || nl == 0 {
		return ""
	}
	item := l.items[ni-1]
	if !item.first || item.paras != paras {
		return ""
	}
	item.first = false
	if item.header {
		return ""
	}
	list := l.open[nl-1]
	return l.styles.styles[list.style].count(min(nl, 10)-1, list.count, item.start, item.start >= 0, false)
}

// count counts an item of level (0–9) in c and returns the label the style draws before
// it (labelText): the item takes value where it has one, else the level's start value
// when restart says so or the level has not counted since one above it, else the next
// number; the levels below start again.
func (style *odfListStyle) count(level int, c *odfCount, value int, hasValue, restart bool) string {
	start := 1
	if style != nil && style[level] != nil {
		start = style[level].start
	}
	switch {
	case hasValue:
		c.n[level] = value
	case restart || !c.used[level]:
		c.n[level] = start
	default:
		c.n[level]++
	}
	c.used[level] = true
	for i := level + 1; i < 10; i++ {
		c.used[i] = false
	}
	return style.labelText(level, c)
}

// labelText is the label a style's level draws for the counts c: "•" for a bullet, else
// the numbers of the levels it displays, joined by ".", with its prefix and suffix.
func (style *odfListStyle) labelText(level int, c *odfCount) string {
	if style == nil || style[level] == nil {
		return ""
	}
	lvl := style[level]
	if lvl.bullet {
		return "•"
	}
	var nums []string
	for i := max(level-lvl.display+1, 0); i <= level; i++ {
		v, f := 1, lvl.format
		if style[i] != nil {
			v, f = style[i].start, style[i].format
		}
		if c.used[i] {
			v = c.n[i]
		}
		if s := numberText(v, odfFormat(f)); s != "" {
			nums = append(nums, s)
		}
	}
	if len(nums) == 0 {
		return "" // num-format "": no number, nor what stands around it
	}
	return strings.TrimSpace(lvl.prefix + strings.Join(nums, ".") + lvl.suffix)
}

// odfFormat maps ODF's style:num-format onto Word's w:numFmt names numberText takes.
func odfFormat(f string) string {
	switch f {
	case "":
		return "none"
	case "a":
		return "lowerLetter"
	case "A":
		return "upperLetter"
	case "i":
		return "lowerRoman"
	case "I":
		return "upperRoman"
	}
	// LibreOffice names its other formats by their first numbers ("１, ２, ３, ...")
	switch {
	case strings.HasPrefix(f, "１"):
		return "decimalFullWidth"
	case strings.HasPrefix(f, "①"):
		return "decimalEnclosedCircle"
	}
	return "decimal"
}
