package pdftext

import "bytes"

// Unknown escapes in literal strings. A backslash before a character the string syntax does
// not name ("\ " in AutoCAD's pdfplot: "(Visible\ Edges)", a page's /VP measure "(\ )") is
// to be ignored (ISO 32000-1 §7.3.4.2), but the object reader rejects it, and an object
// holding one cannot be read: a page object holding one loses the whole document, where
// pdftotext reads it. withoutUnknownEscapes drops such backslashes from the strings outside
// streams; the offsets move, so the file is opened again through rebuiltXref's scan.

// withoutUnknownEscapes returns a copy of data without the backslashes of unknown escapes in
// literal strings outside streams and comments, and whether it dropped any.
func withoutUnknownEscapes(data []byte) ([]byte, bool) {
	w := rewrite{data: data}
	depth := 0 // parentheses open: inside a literal string when > 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if depth == 0 {
			if c == '(' {
				depth = 1
			}
			i = skipped(data, i)
			continue
		}
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case '\\':
			if i+1 >= len(data) {
				continue
			}
			switch n := data[i+1]; {
			case bytes.IndexByte([]byte("nrtbf()\\\r\n"), n) >= 0, n >= '0' && n <= '7':
				i++ // a known escape: its character is no delimiter
			default:
				w.cut(i, i+1)
			}
		}
	}
	return w.result()
}

// skipped returns where the comment or the stream's data that starts at data[i] ends (its
// last byte, or the line end after a comment), or i when none starts there.
func skipped(data []byte, i int) int {
	switch {
	case data[i] == '%':
		for i < len(data) && data[i] != '\r' && data[i] != '\n' {
			i++
		}
		if i == len(data) {
			i-- // the comment ends the data: no line end follows
		}
	case data[i] == 's' && streamKeyword(data, i):
		end := bytes.Index(data[i:], []byte("endstream"))
		if end < 0 {
			return len(data) - 1
		}
		i += end + len("endstream") - 1
	}
	return i
}

// streamKeyword says whether data[i:] starts the keyword "stream" that opens a stream's data:
// after white space or ">>" and followed by a line end.
func streamKeyword(data []byte, i int) bool {
	if !bytes.HasPrefix(data[i:], []byte("stream")) || i == 0 {
		return false
	}
	if e := i + len("stream"); e >= len(data) || data[e] != '\r' && data[e] != '\n' {
		return false
	}
	p := data[i-1]
	return p == '>' || p == ' ' || p == '\r' || p == '\n' || p == '\t'
}

// Odd hexadecimal strings. "<0>" has an odd number of digits, and its last digit is to be
// taken as followed by 0 (ISO 32000-1 §7.3.4.3), but the object reader rejects it
// ("malformed hex string"): LaTeX's hyperref wrote /ID [<0> <0>] in the cross-reference
// stream of libtommath's bn.pdf, and the whole document was lost where pdftotext reads it.
// withEvenHexStrings writes the 0; the offsets move, so the file is opened again through
// rebuiltXref's scan, as for unknown escapes.

// withEvenHexStrings returns a copy of data whose hexadecimal strings outside streams,
// comments and literal strings all have an even number of digits, a 0 written after the
// last digit of each odd one, and whether it wrote any.
func withEvenHexStrings(data []byte) ([]byte, bool) {
	w := rewrite{data: data}
	depth := 0 // parentheses open: inside a literal string when > 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if depth > 0 {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			case '\\':
				i++
			}
			continue
		}
		if j := skipped(data, i); j != i {
			i = j
			continue
		}
		switch {
		case c == '(':
			depth = 1
		case c == '<' && i+1 < len(data) && data[i+1] == '<':
			i++ // a dictionary's opening
		case c == '<':
			end, digits := hexStringEnd(data, i+1)
			if end < 0 {
				continue
			}
			if digits%2 == 1 {
				w.insert(end, "0")
			}
			i = end
		}
	}
	return w.result()
}

// hexStringEnd returns the offset of the '>' that closes the hexadecimal string whose digits
// start at data[from:], and how many digits it holds; end is -1 when a byte other than a
// digit or white space comes first.
func hexStringEnd(data []byte, from int) (end, digits int) {
	for i := from; i < len(data); i++ {
		switch c := data[i]; {
		case c == '>':
			return i, digits
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
			digits++
		case c == ' ', c == '\t', c == '\r', c == '\n', c == '\f', c == 0:
		default:
			return -1, 0
		}
	}
	return -1, 0
}
