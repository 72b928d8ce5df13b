package extract

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// archive is a zip-packed document (DOCX, XLSX, PPTX, ODT/ODS/ODP, EPUB) read within the document's
// budgets: at most MaxZipEntries entries, each part unpacked through budget.limit (so a
// zip bomb stops at MaxPartBytes or MaxUnpackedBytes whatever its headers claim), XML
// nested at most MaxDepth deep.
type archive struct {
	b     *budget
	files map[string]*zip.File
	// folded holds the parts by their names in lower case: Office Open XML compares part
	// names without regard to ASCII case (ECMA-376 Part 2, 9.1.1.1), and some writers pack
	// "[content_types].xml" and "xl/sharedstrings.xml" (POI's 49609.xlsx).
	folded map[string]*zip.File
}

func openArchive(b *budget, data []byte) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if cutOff("zip", data) && bytes.HasPrefix(data, []byte("PK\x03\x04")) {
			return nil, errCutOff{}
		}
		return nil, fmt.Errorf("%w: not a zip archive (%v)", ErrCorrupt, err)
	}
	if len(zr.File) > MaxZipEntries {
		return nil, fmt.Errorf("%w: it packs %d files, at most %d are read", ErrTooBig, len(zr.File), MaxZipEntries)
	}
	a := &archive{b: b, files: make(map[string]*zip.File, len(zr.File)), folded: map[string]*zip.File{}}
	for _, f := range zr.File {
		a.files[f.Name] = f
	}
	// Some writers pack part names with Windows separators ("xl\_rels\workbook.xml.rels");
	// they are found under the names with slashes too, unless a part already has that name.
	for _, f := range zr.File {
		if name := strings.ReplaceAll(f.Name, `\`, "/"); name != f.Name && a.files[name] == nil {
			a.files[name] = f
		}
	}
	for name, f := range a.files {
		if low := strings.ToLower(name); a.folded[low] == nil || low == name {
			a.folded[low] = f
		}
	}
	return a, nil
}

// has reports whether the archive holds the part name.
func (a *archive) has(name string) bool { return a.file(name) != nil }

// file is the part name, or the one whose name differs from it only in ASCII case.
func (a *archive) file(name string) *zip.File {
	if f := a.files[name]; f != nil {
		return f
	}
	return a.folded[strings.ToLower(name)]
}

// open opens the part name for reading within the budgets; missing says the part is not
// there (an error wrapping ErrCorrupt).
func (a *archive) open(name string) (io.ReadCloser, error) {
	f := a.file(name)
	if f == nil {
		return nil, fmt.Errorf("%w: %s is missing", ErrCorrupt, name)
	}
	if f.UncompressedSize64 > MaxPartBytes {
		return nil, fmt.Errorf("%w: %s unpacks to %s", ErrTooBig, name, mbUp(int64(f.UncompressedSize64)))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, name, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{a.b.limit(rc, name), rc}, nil
}

// read unpacks the part name whole.
func (a *archive) read(name string) ([]byte, error) {
	rc, err := a.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, partError(name, err)
	}
	return data, nil
}

// walkXML calls fn with each token of the XML part name; elements nested deeper than
// MaxDepth are refused.
func (a *archive) walkXML(name string, fn func(xml.Token) error) error {
	rc, err := a.open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	return walkXML(rc, name, fn)
}

func walkXML(r io.Reader, name string, fn func(xml.Token) error) error {
	r, wide := fromUTF16(r)
	dec := xml.NewDecoder(r)
	dec.Strict = false
	dec.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		if l := strings.ToLower(label); l == "utf-8" || l == "utf8" || l == "us-ascii" || l == "ascii" {
			return input, nil
		} else if wide && strings.HasPrefix(l, "utf-16") {
			return input, nil // decoded already
		} else if !wide && !strings.HasPrefix(l, "utf-16") {
			// a single-byte or East Asian encoding the part declares (a workbook a
			// program wrote in ISO-8859-1: LibreOffice's tdf76115.xlsx), read as a
			// browser reads the label
			if dr, err := charset.NewReaderLabel(label, input); err == nil {
				return dr, nil
			}
		}
		return nil, fmt.Errorf("%w: %s is in %s, not UTF-8", ErrUnsupported, name, label)
	}
	depth := 0
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return partError(name, err)
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth++; depth > MaxDepth {
				return fmt.Errorf("%w: %s nests too deep", ErrCorrupt, name)
			}
		case xml.EndElement:
			depth--
		}
		if err := fn(tok); err != nil {
			return err
		}
	}
}

// fromUTF16 returns r as UTF-8 if it starts with a UTF-16 byte-order mark, which XML allows
// beside UTF-8 (an EPUB's package document converted with iconv, still declaring "UTF-8"
// inside), or without one with "<?" in UTF-16 (PhpSpreadsheet's utf16be.xlsx), and whether
// it did; other parts pass as they are.
func fromUTF16(r io.Reader) (io.Reader, bool) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(4)
	switch {
	case len(head) < 2:
		return br, false
	case head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF:
		return transform.NewReader(br, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewDecoder()), true
	case string(head) == "\x00<\x00?": // "<?" in UTF-16 without a byte-order mark (XML's appendix F)
		return transform.NewReader(br, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder()), true
	case string(head) == "<\x00?\x00":
		return transform.NewReader(br, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder()), true
	}
	return br, false
}

// partError words an error met while reading a part: the budgets' own errors pass as
// they are, anything else is damage.
func partError(name string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTooBig) || errors.Is(err, ErrTooSlow) || errors.Is(err, ErrUnsupported) || errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%w: %s: %v", ErrCorrupt, name, err)
}

// resolve joins a relative reference in the part from to an archive path.
func resolve(from, ref string) string {
	ref, _, _ = strings.Cut(ref, "#")
	if strings.HasPrefix(ref, "/") {
		return strings.TrimPrefix(path.Clean(ref), "/")
	}
	return strings.TrimPrefix(path.Join(path.Dir(from), unescapePath(ref)), "/")
}

// unescapePath undoes the %XX escapes of a URL path; a malformed one stays as it is.
func unescapePath(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
