package main

import (
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// A Velthuis source (.dn): TeX whose {\dn …} groups are Devanagari written in Velthuis's
// transliteration ("agnimiile purohita.m"), which the devnag preprocessor turns into codes of
// his fonts. velthuisText spells it as Unicode text — the Devanagari groups by the
// transliteration's rules, the rest as TeX's Roman text with its accents — so that a PDF
// made from it can be scored against what its author wrote. TeX's commands, the Vedic
// accents' macros and the Sāmaveda's accent digits (\^{syllable}{digit}) are left out.

// velthuisConsonants and velthuisVowels are the transliteration's letters, longest first
// where one starts another.
var (
	velthuisConsonants = [][2]string{
		{"kh", "ख"}, {"k", "क"}, {"gh", "घ"}, {"g", "ग"}, {`"n`, "ङ"}, {"ch", "छ"}, {"c", "च"},
		{"jh", "झ"}, {"j", "ज"}, {"~n", "ञ"}, {".th", "ठ"}, {".t", "ट"}, {".dh", "ढ"}, {".d", "ड"},
		{".n", "ण"}, {"th", "थ"}, {"t", "त"}, {"dh", "ध"}, {"d", "द"}, {"n", "न"}, {"ph", "फ"},
		{"p", "प"}, {"bh", "भ"}, {"b", "ब"}, {"m", "म"}, {"y", "य"}, {"r", "र"}, {"l", "ल"},
		{"v", "व"}, {`"s`, "श"}, {".s", "ष"}, {"s", "स"}, {"h", "ह"}, {"L", "ळ"}, {"q", "क़"},
		{"z", "ज़"}, {"f", "फ़"},
	}
	// letter, sign after a consonant
	velthuisVowels = [][3]string{
		{"aa", "आ", "ा"}, {"A", "आ", "ा"}, {"ai", "ऐ", "ै"}, {"au", "औ", "ौ"}, {"a", "अ", ""},
		{"ii", "ई", "ी"}, {"I", "ई", "ी"}, {"i", "इ", "ि"}, {"uu", "ऊ", "ू"}, {"U", "ऊ", "ू"},
		{"u", "उ", "ु"}, {".rr", "ॠ", "ॄ"}, {".R", "ॠ", "ॄ"}, {".r", "ऋ", "ृ"}, {".l", "ऌ", "ॢ"},
		{"e", "ए", "े"}, {"o", "ओ", "ो"},
	}
	velthuisSigns = [][2]string{{".m", "ं"}, {".h", "ः"}, {"/", "ँ"}, {".a", "ऽ"}, {"||", "॥"}, {"|", "।"}, {"..", "."}}
)

// devanagariFromVelthuis spells Velthuis's transliteration: consonants without a vowel
// between them joined by virama, a vowel after a consonant as its sign, digits as
// Devanagari's.
func devanagariFromVelthuis(s string) string {
	var b strings.Builder
	afterConsonant := false
	for len(s) > 0 {
		if c, n := velthuisMatch(s, velthuisConsonants); n > 0 {
			if afterConsonant {
				b.WriteString("\u094D")
			}
			b.WriteString(c)
			s, afterConsonant = s[n:], true
			continue
		}
		if v, sign, n := vowelMatch(s); n > 0 {
			if afterConsonant {
				b.WriteString(sign)
			} else {
				b.WriteString(v)
			}
			s, afterConsonant = s[n:], false
			continue
		}
		if afterConsonant {
			b.WriteString("\u094D") // a consonant without a vowel ends its word so
			afterConsonant = false
		}
		if t, n := velthuisMatch(s, velthuisSigns); n > 0 {
			b.WriteString(t)
			s = s[n:]
			continue
		}
		if s[0] >= '0' && s[0] <= '9' {
			b.WriteRune(rune(0x0966 + int(s[0]-'0')))
		} else if s[0] != '+' && s[0] != '&' {
			b.WriteByte(s[0])
		}
		s = s[1:]
	}
	if afterConsonant {
		b.WriteString("\u094D")
	}
	return b.String()
}

func velthuisMatch(s string, table [][2]string) (string, int) {
	for _, e := range table {
		if strings.HasPrefix(s, e[0]) {
			return e[1], len(e[0])
		}
	}
	return "", 0
}

func vowelMatch(s string) (letter, sign string, n int) {
	for _, e := range velthuisVowels {
		if strings.HasPrefix(s, e[0]) {
			return e[1], e[2], len(e[0])
		}
	}
	return "", "", 0
}

var (
	texComment   = regexp.MustCompile(`(?m)(^|[^\\])%.*$`)
	texDefLine   = regexp.MustCompile(`(?m)^\\(?:def|font|input)\b.*$`)
	accentDigits = regexp.MustCompile(`\\\^\{([^{}]*)\}\{[0-9][^{}]*\}`) // \^{syllable}{digit}
	romanScripts = regexp.MustCompile(`\\\^(?:\{[^{}]*\}|[0-9])`)        // a\^2, hot\=a\^{2ra}
	// \=a, \={\i}, \d{m}, \d m: not \dnum, a command of its own
	texAccent  = regexp.MustCompile(`\\([=~.'^"])\s*(?:\{(\\i|[^{}])\}|(\\i|[A-Za-z]))|\\([du])(?:\s*\{(\\i|[^{}])\}|\s+(\\i|[A-Za-z]))`)
	texCommand = regexp.MustCompile(`\\(?:[A-Za-z@]+|[^A-Za-z])`)
)

var texAccents = map[string]string{"d": "\u0323", "=": "\u0304", "~": "\u0303", ".": "\u0307", "'": "\u0301", "^": "\u0302", `"`: "\u0308", "u": "\u0306"}

// velthuisText is the text of a Velthuis source.
func velthuisText(src string) string {
	src = texComment.ReplaceAllString(src, "$1")
	src = texDefLine.ReplaceAllString(src, "")
	var b strings.Builder
	for len(src) > 0 {
		i := strings.Index(src, `{\dn`) // {\dn, {\dnhead, {\dnnormal: Devanagari fonts
		if i < 0 {
			b.WriteString(romanText(src))
			break
		}
		b.WriteString(romanText(src[:i]))
		end := matchingBrace(src, i)
		b.WriteString(" " + devanagariGroup(src[i+1:end]) + " ")
		src = src[min(end+1, len(src)):]
	}
	return norm.NFC.String(b.String())
}

// matchingBrace is the index of the brace closing the one at open (len(s) when none).
func matchingBrace(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case s[i] == '{':
			depth++
		case s[i] == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

// devanagariGroup spells one {\dn …} group: its commands and braces off, the accent
// digits too, the transliteration in Devanagari.
func devanagariGroup(s string) string {
	s = accentDigits.ReplaceAllString(s, "$1")
	s = strings.NewReplacer(`\~`, "", `\_`, "", `\|`, "").Replace(s) // Vedic accents' macros
	s = texCommand.ReplaceAllString(s, " ")
	s = strings.NewReplacer("{", "", "}", "").Replace(s)
	return devanagariFromVelthuis(s)
}

// romanText spells TeX's Roman text: accents on their letters, commands and braces off.
func romanText(s string) string {
	s = romanScripts.ReplaceAllString(s, "")
	s = texAccent.ReplaceAllStringFunc(s, func(m string) string {
		sub := texAccent.FindStringSubmatch(m)
		letter := sub[2] + sub[3] + sub[5] + sub[6]
		if letter == `\i` {
			letter = "ı"
		}
		return letter + texAccents[sub[1]+sub[4]]
	})
	s = strings.NewReplacer(`\_`, "", `\|`, "").Replace(s)
	s = texCommand.ReplaceAllString(s, " ")
	return strings.NewReplacer("{", "", "}", "", "~", " ").Replace(s)
}
