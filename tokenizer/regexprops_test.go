package tokenizer

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"testing"
)

// TestRegexProperties compares what \p{…} matches with the reference's regex engine
// (testdata/regex_props.json.gz, written by tools/tokref/props.js): for every name the tables
// hold, over every code point of planes 0–3 and 14 and a sample of the others (unassigned or
// private use throughout), and for escapes and names whose reading depends on the bracket
// expression they stand in (\w, \p{Word}, [\b], negations …) over a sample; and what (?i)[c]+
// and (?i)c+ match, for every character c with a case folding, in a text of them all and of
// the multi-character foldings.
func TestRegexProperties(t *testing.T) {
	var ref struct {
		Names    map[string]string
		Contexts map[string]string
		FoldText string `json:"fold_text"`
		Folds    map[string][2]string
	}
	readGz(t, "regex_props.json.gz", &ref)
	initClasses()
	if len(ref.Names) != len(propKeys) {
		t.Errorf("%d names in the reference's digests, %d in propKeys", len(ref.Names), len(propKeys))
	}
	inPlanes := func(c rune) bool {
		return c < 0x40000 || c >= 0xe0000 && c < 0xf0000 || c%61 == 0 || c&0xffff >= 0xfffe || c&0xffff < 2
	}
	bySet := map[uint16]string{}
	for i, key := range propKeys {
		want, ok := ref.Names[key]
		if !ok {
			t.Errorf("\\p{%s}: not in the reference's digests", key)
			continue
		}
		set := propSetOf[i]
		got, ok := bySet[set]
		if !ok {
			var cps []rune
			for _, r := range decodePropSet(propSets[set]) {
				for c := r[0]; c < r[1]; c++ {
					if (c < 0xd800 || c > 0xdfff) && inPlanes(c) {
						cps = append(cps, c)
					}
				}
			}
			got = runeDigest(cps)
			bySet[set] = got
		}
		if got != want {
			t.Errorf("\\p{%s}: digest %s, reference %s", key, got, want)
		}
		if _, ok := propertyClass(key, true); !ok {
			t.Errorf("\\p{%s} refused", key)
		}
	}
	var sample []rune
	for c := rune(0); c < 0x110000; c++ {
		if (c < 0xd800 || c > 0xdfff) && (c < 0x3400 || c%61 == 0) {
			sample = append(sample, c)
		}
	}
	text := string(sample)
	for re, want := range ref.Contexts {
		p, err := compilePattern(re + "+")
		if err != nil {
			t.Errorf("%s: %v", re, err)
			continue
		}
		var cps []rune
		p.findAll(text, func(a, b int) {
			for _, c := range text[a:b] {
				cps = append(cps, c)
			}
		})
		if got := runeDigest(cps); got != want {
			t.Errorf("%s: digest %s, reference %s", re, got, want)
		}
	}
	checkFolds(t, ref.FoldText, ref.Folds)
}

// checkFolds runs (?i)[c]+ and (?i)c+ once for each group of characters with the same full
// and simple case folding (the engine's results depend on nothing else), after checking that
// the reference's digests agree within the group.
func checkFolds(t *testing.T, text string, folds map[string][2]string) {
	if len(folds) < 2900 {
		t.Fatalf("%d case-folding digests: rerun tools/tokref/props.js", len(folds))
	}
	groups := map[string]string{} // folding key → the first character's hex
	for x, want := range folds {
		c, err := strconv.ParseUint(x, 16, 32)
		if err != nil {
			t.Fatal(err)
		}
		key := string(caseFold(nil, rune(c))) + "|" + string(simpleFold(rune(c)))
		if y, ok := groups[key]; ok {
			if folds[y] != want {
				t.Errorf("U+%s and U+%s fold alike but the reference matches them differently: %v, %v", x, y, want, folds[y])
			}
			continue
		}
		groups[key] = x
	}
	for _, x := range groups {
		for i, re := range []string{`(?i)[\x{` + x + `}]+`, `(?i)\x{` + x + `}+`} {
			p, err := compilePattern(re)
			if err != nil {
				t.Errorf("%s: %v", re, err)
				continue
			}
			h := sha256.New()
			first := true
			p.findAll(text, func(a, b int) {
				if !first {
					h.Write([]byte{0})
				}
				first = false
				h.Write([]byte(text[a:b]))
			})
			if got, want := hex.EncodeToString(h.Sum(nil)[:8]), folds[x][i]; got != want {
				t.Errorf("%s: digest %s, reference %s", re, got, want)
			}
		}
	}
}

// runeDigest is props.js's digest: the first 8 bytes of the SHA-256 of the code points (4
// bytes each, little endian), in hex.
func runeDigest(cps []rune) string {
	h := sha256.New()
	var b [4]byte
	for _, c := range cps {
		binary.LittleEndian.PutUint32(b[:], uint32(c))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
