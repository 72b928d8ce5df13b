package index

import (
	"strings"
	"unicode"
	"unicode/utf8"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// analyzer turns text into index terms: runs of letters and digits, lower-cased, English
// stop words dropped, English words stemmed (Snowball), so "payments" finds "payment".
// It caches stems; one analyzer is used by one goroutine at a time.
type analyzer struct {
	stems map[string]string
	env   *snowball.Env
	buf   []byte
}

func newAnalyzer() *analyzer {
	return &analyzer{stems: map[string]string{}, env: snowball.NewEnv("")}
}

// maxTermBytes drops longer runs (hashes, base64): they never match a question.
const maxTermBytes = 40

// terms calls f with each term of text.
func (a *analyzer) terms(text string, f func(term string)) {
	i := 0
	for i < len(text) {
		r, w := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(text[i:])
		}
		if !isWordRune(r) {
			i += w
			continue
		}
		start := i
		for i < len(text) {
			r, w = rune(text[i]), 1
			if r >= utf8.RuneSelf {
				r, w = utf8.DecodeRuneInString(text[i:])
			}
			if !isWordRune(r) {
				break
			}
			i += w
		}
		word := text[start:i]
		if len(word) > maxTermBytes {
			continue
		}
		if t := a.term(word); t != "" {
			f(t)
		}
	}
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// term normalises one word: "" for a stop word.
func (a *analyzer) term(word string) string {
	if t, ok := a.stems[word]; ok {
		return t
	}
	lower := a.lower(word)
	t := lower
	if stopWords[lower] {
		t = ""
	} else if len(lower) > 3 && isASCIILetters(lower) {
		a.env.SetCurrent(lower)
		english.Stem(a.env)
		t = a.env.Current()
	}
	if len(a.stems) < 1<<20 { // bound the cache on pathological text
		a.stems[strings.Clone(word)] = t
	}
	return t
}

func (a *analyzer) lower(word string) string {
	a.buf = a.buf[:0]
	ascii := true
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		a.buf = append(a.buf, c)
	}
	if !ascii {
		return strings.ToLower(word)
	}
	return string(a.buf)
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// stopWords are common English words that say nothing about a passage.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for if in into is it no not of on or
		such that the their then there these they this to was will with what which who whom whose
		when where why how do does did i you he she we me my your our its his her them us from
		than so can could would should has have had been being am were any all also about`) {
		stopWords[w] = true
	}
}
