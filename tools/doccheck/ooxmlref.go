package main

import (
	"os"
	"path/filepath"
	"regexp"

	"edgechat/internal/paths"
)

// The reference readers of XLSX and PPTX, which pandoc does not read. tools/setup.sh
// --doccheck installs both into the cache (neither is needed by the packages' tests):
//
//   - XLSX: Debian's xlsx2csv (a Python script; `apt-get download xlsx2csv`, `dpkg -x`),
//     every sheet (--all) with cells separated by tabs and dates written as EdgeChat writes
//     them (-f %Y-%m-%d; xlsx2csv would otherwise write the file's own date format, and a
//     date reads as "03-15-23" against EdgeChat's "2023-03-15"). It separates the sheets by
//     "-------- 1 - Sheet1" lines; the sheet's name is kept, the rest taken off (unmarkXLSX).
//   - PPTX: the npm package officeparser (`npm install officeparser@8.1.1`), run with node:
//     an independent reader of a presentation's slides and notes that needs no office
//     suite (LibreOffice's impress would convert to ODP for odt2txt, but pulls in hundreds
//     of megabytes and takes seconds a file to start).
func xlsxReference(doc string) []string {
	return []string{"python3", filepath.Join(paths.CacheDir(), "doccheck", "xlsx2csv", "usr", "bin", "xlsx2csv"),
		"--all", "-d", "tab", "-f", "%Y-%m-%d", doc}
}

func pptxReference(doc string) []string {
	return []string{"node", filepath.Join(paths.CacheDir(), "doccheck", "officeparser", "node_modules", "officeparser", "dist", "cli.js"),
		doc, "--to=text", "--includeImages=none"}
}

// sheetLine is xlsx2csv's line between sheets ("-------- 2 - Costs"); slideHeading the
// words EdgeChat puts before a slide's title and notes ("Slide 3 (hidden): ", "Notes"),
// which are its labels, not the presentation's words.
var (
	sheetLine    = regexp.MustCompile(`(?m)^-------- \d+ - `)
	slideHeading = regexp.MustCompile(`(?m)^(?:Slide \d+(?: \(hidden\))?(?:: |$)|Notes$)`)
)

// unmarkOOXML takes a reader's marks off an XLSX's or PPTX's text: xlsx2csv's sheet
// separators, EdgeChat's slide labels.
func unmarkOOXML(doc string, ref, ours []byte) ([]byte, []byte) {
	switch filepath.Ext(doc) {
	case ".xlsx", ".XLSX":
		ref = sheetLine.ReplaceAll(ref, nil)
	case ".pptx", ".PPTX":
		ours = slideHeading.ReplaceAll(ours, nil)
	}
	return ref, ours
}

// haveOOXMLReferences says whether both reference readers are installed.
func haveOOXMLReferences() bool {
	for _, cmd := range [][]string{xlsxReference(""), pptxReference("")} {
		if _, err := os.Stat(cmd[1]); err != nil {
			return false
		}
	}
	return true
}
