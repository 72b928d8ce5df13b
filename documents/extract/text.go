package extract

import (
	"bytes"
	"strings"
	"unicode/utf8"

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
	text, err := decodeBytes(data)
	if err == nil {
		err = b.addText(len(text))
	}
	return text, err
}

func decodeBytes(data []byte) (string, error) {
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

// tidy normalises line ends and blank runs, trims sections and drops empty ones.
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
	return b.String()
}
