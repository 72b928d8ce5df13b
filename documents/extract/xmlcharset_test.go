package extract_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"unicode/utf16"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// utf16Part returns s as UTF-16 with its byte-order mark, little- or big-endian.
func utf16Part(s string, little bool) string {
	units := append([]uint16{0xFEFF}, utf16.Encode([]rune(s))...)
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if little {
			out = append(out, byte(u), byte(u>>8))
		} else {
			out = append(out, byte(u>>8), byte(u))
		}
	}
	return string(out)
}

// TestXMLPartUTF16 reads XML parts written in UTF-16 with a byte-order mark, which XML
// allows beside UTF-8: epub-rs's book2.epub has its package document so (declared "UTF-8"
// inside, as iconv left it) and was refused as damaged ("invalid UTF-8").
func TestXMLPartUTF16(t *testing.T) {
	opf := `<?xml version="1.0" encoding="%s"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0"><metadata/><manifest>
<item id="c1" href="one.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>`
	chapter := testdocs.File{Name: "OEBPS/one.xhtml", Body: `<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Gregor Samsa’s dream.</p></body></html>`}
	for _, tc := range []struct {
		name, label   string
		little, noBOM bool
	}{
		{"little-endian, declared UTF-8", "UTF-8", true, false},
		{"little-endian, declared UTF-16", "UTF-16", true, false},
		{"big-endian, declared utf-16be", "utf-16be", false, false},
		// no byte-order mark: "<?" in UTF-16 says which (PhpSpreadsheet's utf16be.xlsx, whose
		// workbook is so, was refused as damaged: "illegal char")
		{"big-endian without a mark", "UTF-16BE", false, true},
		{"little-endian without a mark", "UTF-16LE", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := utf16Part(fmt.Sprintf(opf, tc.label), tc.little)
			if tc.noBOM {
				body = body[2:]
			}
			doc, err := extract.Bytes(context.Background(), "book.epub", epub(testdocs.File{Name: "OEBPS/content.opf", Body: body}, chapter), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "epub", []extract.Section{{Text: "Gregor Samsa’s dream."}})
		})
	}
}

// TestXMLPartSingleByte reads XML parts that declare a single-byte or East Asian encoding:
// LibreOffice's tdf76115.xlsx (a program's export, in umya-spreadsheet's tests) has its
// sheet in ISO-8859-1 ("S\xe9rie") and was refused as unsupported. An encoding nobody
// knows is still refused, and so is a part that declares UTF-16 without being so.
func TestXMLPartSingleByte(t *testing.T) {
	for _, tc := range []struct {
		name, label, text, want string
		err                     error
	}{
		{"ISO-8859-1", "ISO-8859-1", "S\xe9rie N\xba", "Série Nº", nil},
		{"windows-1252", "windows-1252", "\x93caf\xe9\x94", "“café”", nil},
		{"Shift_JIS", "Shift_JIS", "\x93\x8c\x8b\x9e", "東京", nil},
		{"unknown", "x-unheard-of", "plain", "", extract.ErrUnsupported},
		{"UTF-16 declared, bytes are not", "UTF-16", "plain", "", extract.ErrUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := sheet(`<row r="1"><c r="A1" t="inlineStr"><is><t>` + tc.text + `</t></is></c></row>`)
			body := `<?xml version="1.0" encoding="` + tc.label + `" standalone="yes"?>` + rows
			doc, err := extract.Bytes(context.Background(), "book.xlsx", workbook(false, "", "", [3]string{"Plan1", "", body}), nil)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("got %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "xlsx", []extract.Section{{Heading: "Plan1", Text: tc.want}})
		})
	}
}
