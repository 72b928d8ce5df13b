package pdftext

import (
	"fmt"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// TestPredefinedCJKCMaps: Type0 fonts that name a predefined CMap of a CJK collection
// (Shift-JIS, GBK, Big Five, UHC, EUC, UTF-8) and have no ToUnicode map read by the
// collection's CID to Unicode map, as pdftotext reads them with poppler-data installed;
// a ToUnicode map still wins, and an embedded CMap that uses a predefined one reads by it.
func TestPredefinedCJKCMaps(t *testing.T) {
	embedded := func(dict, body string) []byte { return testdocs.Stream(dict, []byte(body)) }
	tests := []struct {
		name     string
		encoding string // the Type0 font's Encoding: a name, or "7 0 R" for the embedded CMap
		ordering string
		codes    string // the shown string, in hex
		toUni    string // a ToUnicode map's body, "" for none
		cmap     []byte // an embedded CMap stream (object 7)
		want     string
	}{
		{name: "Shift-JIS", encoding: "/90ms-RKSJ-H", ordering: "Japan1", codes: "93FA967B8CEA", want: "日本語"},
		{name: "Shift-JIS with half-width ASCII and kana", encoding: "/90ms-RKSJ-H", ordering: "Japan1", codes: "414243B1", want: "ABCｱ"},
		{name: "Shift-JIS proportional", encoding: "/90msp-RKSJ-H", ordering: "Japan1", codes: "4A4953", want: "JIS"},
		{name: "Shift-JIS vertical", encoding: "/90ms-RKSJ-V", ordering: "Japan1", codes: "8141", want: "、"},
		{name: "EUC-JP", encoding: "/EUC-H", ordering: "Japan1", codes: "C6FCCBDC", want: "日本"},
		{name: "GBK", encoding: "/GBK-EUC-H", ordering: "GB1", codes: "D6D0CEC4", want: "中文"},
		{name: "GB2312", encoding: "/GB-EUC-H", ordering: "GB1", codes: "D6D0CEC4", want: "中文"},
		{name: "Big Five", encoding: "/ETen-B5-H", ordering: "CNS1", codes: "A4A4A4E5", want: "中文"},
		{name: "UHC", encoding: "/KSCms-UHC-H", ordering: "Korea1", codes: "C7D1B1B9", want: "한국"},
		{name: "EUC-KR", encoding: "/KSC-EUC-H", ordering: "Korea1", codes: "C7D1B1B9", want: "한국"},
		{name: "UTF-8", encoding: "/UniJIS-UTF8-H", ordering: "Japan1", codes: "E697A5E69CAC41", want: "日本A"},
		{name: "UTF-16 with a surrogate pair", encoding: "/UniJIS2004-UTF16-H", ordering: "Japan1", codes: "65E5D840DC0B", want: "日\U0002000B"},
		{name: "Identity CIDs of Adobe-Japan1", encoding: "/Identity-H", ordering: "Japan1", codes: "04650CD40E8A", want: "亜日本"},
		{name: "ToUnicode wins", encoding: "/90ms-RKSJ-H", ordering: "Japan1", codes: "93FA967B",
			toUni: "1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <93FA> <0058> endbfchar", want: "X本"},
		{name: "embedded CMap using a predefined one", encoding: "7 0 R", ordering: "Japan1", codes: "93FA967B",
			cmap: embedded("", "/90ms-RKSJ-H usecmap 1 begincidchar <967B> 1125 endcidchar"), want: "日亜"},
		{name: "embedded CMap with UseCMap", encoding: "7 0 R", ordering: "GB1", codes: "D6D0CEC4",
			cmap: embedded("/UseCMap /GBK-EUC-H", "1 begincodespacerange <00> <80> endcodespacerange"), want: "中文"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			toUni := ""
			if tc.toUni != "" {
				toUni = " /ToUnicode 8 0 R"
			}
			font := fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding %s /DescendantFonts [6 0 R]%s >>", tc.encoding, toUni)
			cid := fmt.Sprintf("<< /Type /Font /Subtype /CIDFontType0 /BaseFont /X /CIDSystemInfo << /Registry (Adobe) /Ordering (%s) /Supplement 2 >> /DW 1000 >>", tc.ordering)
			cmap := tc.cmap
			if cmap == nil {
				cmap = []byte("null")
			}
			content := "BT /F1 10 Tf 72 700 Td <" + tc.codes + "> Tj ET"
			pages, err := Read(pdfWithFont(font, content, []byte(cid), cmap, embedded("", tc.toUni)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(strings.Fields(pages[0].Text), ""); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCJKTables: every record of cjkcmaps.bin reads, each CMap maps the codes of its
// codespace's first range, and each collection's map reads its first CIDs.
func TestCJKTables(t *testing.T) {
	records := cjkRecords()
	if len(records) < 90 {
		t.Fatalf("%d records, want the CMaps of four collections", len(records))
	}
	for name := range records {
		if strings.HasPrefix(name, "Adobe-") {
			u := collectionText(name)
			if u == nil || len(u.runs) < 1000 {
				t.Errorf("%s: no CID to Unicode map", name)
			} else if s, _ := u.text(34); s != "A" && name != "Adobe-CNS1" && name != "Adobe-GB1" {
				t.Errorf("%s: CID 34 reads %q, want A", name, s)
			}
			continue
		}
		m := predefinedCMap(name)
		if m == nil || !m.hasSpace() {
			t.Errorf("%s: no CMap", name)
		}
	}
	for _, tc := range []struct {
		cmap string
		code uint32
		n    int
		cid  uint32
	}{
		{"90ms-RKSJ-H", 0x93FA, 2, 3284},
		{"90ms-RKSJ-V", 0x8141, 2, 7887}, // vertical form, from its own entries
		{"90ms-RKSJ-V", 0x93FA, 2, 3284}, // by its base, 90ms-RKSJ-H
		{"90msp-RKSJ-H", 0x41, 1, 34},
	} {
		if got, _ := predefinedCMap(tc.cmap).cid(tc.code, tc.n); got != tc.cid {
			t.Errorf("%s: code %X is CID %d, want %d", tc.cmap, tc.code, got, tc.cid)
		}
	}
}
