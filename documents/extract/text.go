package extract

import (
	"bytes"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// readText reads plain text or source code as one section.
func readText(b *budget, data []byte, format string) (*Document, error) {
	text, err := decodeText(b, data)
	if err != nil {
		return nil, err
	}
	return &Document{Format: format, Sections: []Section{{Text: text}}}, nil
}

// decodeText returns data as UTF-8: UTF-8 (with or without a byte-order mark), UTF-16 with
// a byte-order mark, or else Windows-1252 (which every byte sequence is), within the text
// budget.
func decodeText(b *budget, data []byte) (string, error) {
	text, err := decodeBytes(data, b.owned)
	if err == nil {
		err = b.addText(len(text))
	}
	return text, err
}

func decodeBytes(data []byte, owned bool) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		out, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewDecoder().Bytes(data)
		if err != nil {
			return "", err
		}
		return string(out), nil
	}
	if utf8.Valid(data) {
		if owned && len(data) > 0 {
			return unsafe.String(unsafe.SliceData(data), len(data)), nil // never written again
		}
		return string(data), nil
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "", ErrUnsupported // binary
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(data)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// tidy normalises line ends and blank runs, trims sections and drops empty ones. Text that
// is tidy already is kept as it is, not copied.
func tidy(secs []Section) []Section {
	out := secs[:0]
	for _, s := range secs {
		s.Text = tidyText(s.Text)
		if s.Text != "" {
			out = append(out, s)
		}
	}
	return out
}

func tidyText(s string) string {
	if t := strings.TrimSpace(s); isTidy(t) {
		return t
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.ReplaceAll(s, "\u00a0", " ")
	var b strings.Builder
	b.Grow(len(s))
	blank := 0
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, " \t\n\f\v")
		if strings.TrimSpace(line) == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			if blank > 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
		}
		blank = 0
		b.WriteString(line)
	}
	// TrimSpace, as the check at the top: a line may begin or end with white space
	// outside ASCII (U+0085, U+2003…), which the line trims above leave.
	return strings.TrimSpace(b.String())
}

// isTidy says whether tidyText would return s unchanged: no carriage returns or no-break
// spaces, no white space at the ends of lines or of s, no more than one blank line in a row,
// no line of white space only.
func isTidy(s string) bool {
	if s == "" || s != strings.TrimSpace(s) || strings.ContainsAny(s, "\r\u00a0") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '\n' {
			continue
		}
		if c := s[i-1]; c == ' ' || c == '\t' || c == '\f' || c == '\v' {
			return false // white space before a line end
		}
		if j := i + 1; j < len(s) && s[j] == '\n' && j+1 < len(s) && s[j+1] == '\n' {
			return false // two blank lines
		}
		if j := i + 1; j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			k := j
			for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\f' || s[k] == '\v') {
				k++
			}
			if k < len(s) && s[k] == '\n' {
				return false // a line of white space
			}
		}
	}
	return true
}
