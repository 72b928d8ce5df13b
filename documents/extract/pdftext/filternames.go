package pdftext

import "regexp"

// Abbreviated filter names in a stream's dictionary. ISO 32000-1 gives the short names (AHx,
// A85, LZW, Fl, RL, CCF, DCT) to inline images (§8.9.7), but some writers put them in stream
// dictionaries too (qpdf's filter-abbreviation.pdf: its object and cross-reference streams
// /Filter /Fl). The object reader, which decodes those streams itself, rejects the whole
// document ("unknown filter Fl") where pdftotext reads it. withFullFilterNames spells the
// names out; the offsets move, so the file is opened again through rebuiltXref's scan
// (rereads.go). Content streams' filters are EdgeChat's own and take both (filters.go).

var (
	filterEntry = regexp.MustCompile(`/Filter\s*(?:\[[^\]]*\]|/[A-Za-z0-9]+)`)
	shortFilter = regexp.MustCompile(`/(AHx|A85|LZW|Fl|RL|CCF|DCT)\b`)
	fullFilter  = map[string]string{"AHx": "ASCIIHexDecode", "A85": "ASCII85Decode", "LZW": "LZWDecode",
		"Fl": "FlateDecode", "RL": "RunLengthDecode", "CCF": "CCITTFaxDecode", "DCT": "DCTDecode"}
)

// withFullFilterNames returns a copy of data whose /Filter entries name their filters in
// full, and whether it changed any.
func withFullFilterNames(data []byte) ([]byte, bool) {
	w := rewrite{data: data}
	for _, m := range filterEntry.FindAllIndex(data, -1) {
		for _, s := range shortFilter.FindAllSubmatchIndex(data[m[0]:m[1]], -1) {
			from, to := m[0]+s[2], m[0]+s[3]
			w.cut(from, to)
			w.insert(to, fullFilter[string(data[from:to])])
		}
	}
	return w.result()
}
