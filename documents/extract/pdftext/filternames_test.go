package pdftext

import (
	"bytes"
	"testing"
)

// TestFilterAbbreviations: object and cross-reference streams whose /Filter is /Fl (qpdf's
// filter-abbreviation.pdf, padded with spaces to keep the offsets) lost the whole document
// ("unknown filter Fl"); spelled out, it reads as pdftotext reads it.
func TestFilterAbbreviations(t *testing.T) {
	whole, ok := rebuiltXref(objectStreamPDF("BT /F1 10 Tf 72 700 Td (compressed objects) Tj ET"))
	if !ok {
		t.Fatal("no cross-reference stream made")
	}
	short := bytes.ReplaceAll(whole, []byte("/Filter /FlateDecode"), []byte("/Filter /Fl         "))
	if bytes.Equal(short, whole) {
		t.Fatal("no /Filter /FlateDecode to abbreviate")
	}
	readsAs(t, "", short, "compressed objects")
}

func TestWithFullFilterNames(t *testing.T) {
	checkRepair(t, "withFullFilterNames", withFullFilterNames, []repairCase{
		{"<< /Filter /Fl /Length 3 >>", "<< /Filter /FlateDecode /Length 3 >>"},
		{"<</Filter[/AHx /LZW]/DecodeParms[null<</EarlyChange 0>>]>>", "<</Filter[/ASCIIHexDecode /LZWDecode]/DecodeParms[null<</EarlyChange 0>>]>>"},
		{"<< /Filter/A85/RL >>", "<< /Filter/ASCII85Decode/RL >>"},
		{"<< /Filter /FlateDecode /Fl 1 >>", "<< /Filter /FlateDecode /Fl 1 >>"},
		{"<< /F /Fl >> (/Filter) /DCT", "<< /F /Fl >> (/Filter) /DCT"},
		{"<< /Filter [/CCF /DCT] >>", "<< /Filter [/CCITTFaxDecode /DCTDecode] >>"},
	})
}

// FuzzFullFilterNames: withFullFilterNames only spells out names, and a file so changed
// reads without panicking.
func FuzzFullFilterNames(f *testing.F) {
	f.Add([]byte("1 0 obj << /Filter /Fl /Length 3 >> stream\nabc\nendstream endobj"))
	f.Add([]byte("<< /Filter [/AHx /A85 /LZW /RL /CCF /DCT] >>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		full := func(b []byte) []byte {
			for short, long := range fullFilter {
				b = bytes.ReplaceAll(b, []byte("/"+long), []byte("/"+short))
			}
			return b
		}
		fuzzRepair(t, data, withFullFilterNames, full)
	})
}
