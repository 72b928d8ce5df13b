package extract

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// wordNumbering holds a DOCX's list numbering (word/numbering.xml) and counts its items as
// Word does, so that a numbered paragraph reads with the label Word draws before it ("3.",
// "2.1", "b)", "IV."; "•" for a bullet). A paragraph takes a numbering instance (w:num) and
// a level from its w:numPr, else from its style's. Instances that share an abstract
// numbering share its counters (a list Word continues), unless an instance overrides a
// level's start (w:lvlOverride/w:startOverride: a list Word restarts), which then counts
// from there when it is first used. A level starts again after an item of a level above it
// (w:lvlRestart says after which, 0: never); a level above an item that no item used counts
// as at its start (w:start, 0 when left out), and the next item there comes after it.
type wordNumbering struct {
	nums      map[string]*wordNum
	abstracts map[string]*wordAbstract
	// counts are the abstract numberings' counters, by abstract id.
	counts map[string]*wordCounts
}

// wordNum is a numbering instance: its abstract numbering and the levels it overrides.
type wordNum struct {
	abstract string
	// start holds the levels' start overrides (-1: none); levels the levels it redefines.
	start   [9]int
	levels  [9]*wordLevel
	applied bool
}

type wordAbstract struct {
	levels [9]*wordLevel
	// styleLink names a numbering style whose instance holds the levels (w:numStyleLink).
	styleLink string
}

type wordLevel struct {
	start        int
	format, text string
	// restart is w:lvlRestart's value plus one (0: unset, restart after any level above).
	restart int
	legal   bool
	// style is the paragraph style linked to the level (w:pStyle).
	style string
}

type wordCounts struct {
	n    [9]int
	used [9]bool
}

// readNumbering reads word/numbering.xml; a damaged part gives the numbering read so far.
func readNumbering(a *archive, part string) (*wordNumbering, error) {
	n := &wordNumbering{nums: map[string]*wordNum{}, abstracts: map[string]*wordAbstract{}, counts: map[string]*wordCounts{}}
	var abs *wordAbstract
	var num *wordNum
	var lvl *wordLevel
	override := -1 // the level a w:lvlOverride is about
	err := a.walkXML(part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != "w" && t.Name.Space != "" {
				return nil
			}
			val := attr(t, "val")
			switch t.Name.Local {
			case "abstractNum":
				abs, num = &wordAbstract{}, nil
				n.abstracts[attr(t, "abstractNumId")] = abs
			case "num":
				num, abs = &wordNum{start: [9]int{-1, -1, -1, -1, -1, -1, -1, -1, -1}}, nil
				n.nums[attr(t, "numId")] = num
			case "abstractNumId":
				if num != nil {
					num.abstract = val
				}
			case "numStyleLink":
				if abs != nil {
					abs.styleLink = val
				}
			case "lvlOverride":
				override = levelIndex(attr(t, "ilvl"))
			case "startOverride":
				if s, err := strconv.Atoi(val); err == nil && num != nil && override >= 0 {
					num.start[override] = s
				}
			case "lvl":
				lvl = &wordLevel{format: "decimal"} // w:start left out: 0
				i := levelIndex(attr(t, "ilvl"))
				switch {
				case i < 0:
					lvl = nil
				case abs != nil:
					abs.levels[i] = lvl
				case num != nil && override >= 0:
					num.levels[override] = lvl
				default:
					lvl = nil
				}
			case "start":
				if s, err := strconv.Atoi(val); err == nil && lvl != nil {
					lvl.start = s
				}
			case "numFmt":
				if lvl != nil {
					lvl.format = val
				}
			case "lvlText":
				if lvl != nil {
					lvl.text = val
				}
			case "lvlRestart":
				if r, err := strconv.Atoi(val); err == nil && lvl != nil && r >= 0 {
					lvl.restart = r + 1
				}
			case "isLgl":
				if lvl != nil {
					lvl.legal = val == "" || val == "1" || val == "true" || val == "on"
				}
			case "pStyle":
				if lvl != nil {
					lvl.style = val
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "lvl":
				lvl = nil
			case "lvlOverride":
				override = -1
			case "abstractNum":
				abs = nil
			case "num":
				num = nil
			}
		}
		return nil
	})
	return n, err
}

// levelIndex reads a w:ilvl (0–8); anything else is -1.
func levelIndex(s string) int {
	i, err := strconv.Atoi(s)
	if err != nil || i < 0 || i > 8 {
		return -1
	}
	return i
}

// abstract finds an instance's abstract numbering, following numbering-style links
// through the styles' instances (numStyles: style id → numId).
func (n *wordNumbering) abstract(num *wordNum, numStyles map[string]string) (string, *wordAbstract) {
	id := num.abstract
	for range 5 { // a chain of links, bounded (it may loop)
		abs := n.abstracts[id]
		if abs == nil || abs.styleLink == "" {
			return id, abs
		}
		linked := n.nums[numStyles[abs.styleLink]]
		if linked == nil {
			return id, abs
		}
		id = linked.abstract
	}
	return id, n.abstracts[id]
}

// level is the definition of level i in an instance: its own redefinition, else its
// abstract numbering's.
func (num *wordNum) level(abs *wordAbstract, i int) *wordLevel {
	if num.levels[i] != nil {
		return num.levels[i]
	}
	if abs == nil {
		return nil
	}
	return abs.levels[i]
}

// styleLevel is the level of an abstract numbering linked to a paragraph style, -1: none.
func (abs *wordAbstract) styleLevel(style string) int {
	for i, l := range abs.levels {
		if l != nil && style != "" && l.style == style {
			return i
		}
	}
	return -1
}

// label counts a paragraph of instance numID at level ilvl (-1: the level linked to its
// style, else 0) and returns the label Word draws before it ("" for none).
func (n *wordNumbering) label(numID string, ilvl int, style string, numStyles map[string]string) string {
	num := n.nums[numID]
	if num == nil || numID == "0" {
		return ""
	}
	id, abs := n.abstract(num, numStyles)
	if ilvl < 0 && abs != nil {
		ilvl = abs.styleLevel(style)
	}
	if ilvl < 0 {
		ilvl = 0
	}
	lvl := num.level(abs, ilvl)
	if lvl == nil {
		return ""
	}
	c := n.counts[id]
	if c == nil {
		c = &wordCounts{}
		n.counts[id] = c
	}
	if !num.applied { // an instance that restarts levels counts from its overrides
		num.applied = true
		for i, s := range num.start {
			if s >= 0 {
				c.n[i], c.used[i] = s-1, true
			}
		}
	}
	if c.used[ilvl] {
		c.n[ilvl]++
	} else {
		c.n[ilvl], c.used[ilvl] = lvl.start, true
	}
	for i := range ilvl { // levels above that no item used count as at their start
		if l := num.level(abs, i); l != nil && !c.used[i] {
			c.n[i], c.used[i] = l.start, true
		}
	}
	for i := ilvl + 1; i < 9; i++ {
		if l := num.level(abs, i); l == nil || l.restart == 0 || ilvl < l.restart-1 {
			c.used[i] = false
		}
	}
	if lvl.format == "bullet" {
		if strings.TrimSpace(lvl.text) == "" {
			return ""
		}
		return "•"
	}
	var b strings.Builder
	for i := 0; i < len(lvl.text); i++ {
		ch := lvl.text[i]
		if ch != '%' || i+1 == len(lvl.text) || lvl.text[i+1] < '1' || lvl.text[i+1] > '9' {
			b.WriteByte(ch)
			continue
		}
		i++
		j := int(lvl.text[i] - '1')
		l := num.level(abs, j)
		if l == nil {
			continue
		}
		v := l.start
		if c.used[j] {
			v = c.n[j]
		}
		format := l.format
		if lvl.legal && format != "none" {
			format = "decimal"
		}
		b.WriteString(numberText(v, format))
	}
	return strings.TrimSpace(b.String())
}

// numberText writes n in a numbering format of Word's w:numFmt (ODF's style:num-format
// "1", "a", "A", "i", "I", "１", "①" are mapped onto them); formats of
// other scripts read as decimal.
func numberText(n int, format string) string {
	switch format {
	case "none", "", "bullet": // a bullet level named in another's text draws nothing
		return ""
	case "decimalFullWidth", "decimalFullWidth2": // Japanese and Chinese headings: "第１章"
		return mapDigits(strconv.Itoa(n), '０')
	case "ideographDigital": // digit by digit: 10 is "一〇"
		if n >= 0 {
			return mapDigits(strconv.Itoa(n), -1)
		}
	case "decimalEnclosedCircle", "decimalEnclosedCircleChinese":
		if n >= 1 && n <= 20 { // Word draws 21 on as plain digits
			return string(rune('①' + n - 1))
		}
	case "decimalEnclosedParen":
		if n >= 1 && n <= 20 {
			return string(rune('⑴' + n - 1))
		}
	case "decimalEnclosedFullstop":
		if n >= 1 && n <= 20 {
			return string(rune('⒈' + n - 1))
		}
	case "decimalZero":
		if n >= 0 && n < 10 {
			return "0" + strconv.Itoa(n)
		}
	case "lowerLetter", "upperLetter":
		if n >= 1 && n <= 26*10 {
			// Word's letters after z repeat: aa, bb, …
			s := strings.Repeat(string(rune('a'+(n-1)%26)), (n-1)/26+1)
			if format == "upperLetter" {
				s = strings.ToUpper(s)
			}
			return s
		}
	case "lowerRoman", "upperRoman":
		if n >= 1 && n < 4000 {
			s := roman(n)
			if format == "lowerRoman" {
				s = strings.ToLower(s)
			}
			return s
		}
	case "ordinal":
		suffix := "th"
		if n%100 < 11 || n%100 > 13 {
			switch n % 10 {
			case 1:
				suffix = "st"
			case 2:
				suffix = "nd"
			case 3:
				suffix = "rd"
			}
		}
		return strconv.Itoa(n) + suffix
	}
	return strconv.Itoa(n)
}

// ideographDigits are the digits 0–9 of ideographDigital ("〇一二三…").
var ideographDigits = []rune("〇一二三四五六七八九")

// mapDigits writes the ASCII digits of s from zero (the full-width '０'), or as
// ideographDigits where zero is -1.
func mapDigits(s string, zero rune) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < '0' || r > '9':
			b.WriteRune(r)
		case zero < 0:
			b.WriteRune(ideographDigits[r-'0'])
		default:
			b.WriteRune(zero + r - '0')
		}
	}
	return b.String()
}

func roman(n int) string {
	var b strings.Builder
	for _, r := range []struct {
		v int
		s string
	}{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}} {
		for n >= r.v {
			b.WriteString(r.s)
			n -= r.v
		}
	}
	return b.String()
}
