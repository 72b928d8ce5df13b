package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

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

// unmarkOOXML takes a reader's marks off an XLSX's or PPTX's text: xlsx2csv's CSV quoting
// and sheet separators, EdgeChat's slide labels; and writes an XLSX's decimal numbers alike.
func unmarkOOXML(doc string, ref, ours []byte) ([]byte, []byte) {
	switch ooxmlExt(doc) {
	case ".xlsx":
		ref = sheetLine.ReplaceAll(unquoteCSV(ref), nil)
		ref, ours = sameDecimals(ref), sameDecimals(ours)
	case ".pptx":
		ours = slideHeading.ReplaceAll(ours, nil)
	}
	return ref, ours
}

// unquoteCSV takes xlsx2csv's CSV quoting off its tab-separated text: a cell holding a
// quote, a tab or a line break is written in quotes with its quotes doubled
// ("[<10]#"" Wow""" for the cell [<10]#" Wow"), which are not the cell's words. Text that
// does not parse as CSV is returned as it is.
func unquoteCSV(text []byte) []byte {
	if !bytes.Contains(text, []byte(`"`)) {
		return text
	}
	r := csv.NewReader(bytes.NewReader(text))
	r.Comma, r.FieldsPerRecord, r.LazyQuotes = '\t', -1, true
	records, err := r.ReadAll()
	if err != nil {
		return text
	}
	var b bytes.Buffer
	for _, rec := range records {
		b.WriteString(strings.Join(rec, "\t"))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// ooxmlExt is doc's extension in lower case, a macro-enabled, template or slide show
// variant's as its plain kind's (.xlsm: .xlsx, .ppsx: .pptx), which the same reference reads.
func ooxmlExt(doc string) string {
	ext := strings.ToLower(filepath.Ext(doc))
	switch ext {
	case ".xlsm", ".xltx", ".xltm":
		return ".xlsx"
	case ".pptm", ".ppsx", ".ppsm", ".potx", ".potm":
		return ".pptx"
	}
	return ext
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

// wordToken is a run of characters other than white space; decimalWord a number with
// decimals.
var (
	wordToken   = regexp.MustCompile(`\S+`)
	decimalWord = regexp.MustCompile(`^-?\d+\.\d+$`)
)

// sameDecimals writes every decimal number of an XLSX's text to 6 decimals, trailing zeros
// taken off: xlsx2csv writes a General number with printf's %f (38437509.329317) where
// EdgeChat writes it as the file stores it (38437509.329316579), the same value.
func sameDecimals(text []byte) []byte {
	return wordToken.ReplaceAllFunc(text, func(w []byte) []byte {
		if !decimalWord.Match(w) {
			return w
		}
		f, err := strconv.ParseFloat(string(w), 64)
		if err != nil {
			return w
		}
		return []byte(strings.TrimRight(strings.TrimRight(strconv.FormatFloat(f, 'f', 6, 64), "0"), "."))
	})
}

// rescore scores again the texts --keep wrote to dir (NAME.ours.txt beside NAME.ref.txt),
// with XLSX numbers compared at 6 decimals, without running the readers again.
func rescore(dir string, loose bool) {
	refs, _ := filepath.Glob(filepath.Join(dir, "*.ref.txt"))
	for _, ref := range refs {
		name := strings.TrimSuffix(ref, ".ref.txt")
		r, err1 := os.ReadFile(ref)
		o, err2 := os.ReadFile(name + ".ours.txt")
		if err1 != nil || err2 != nil {
			continue
		}
		if ooxmlExt(name) == ".xlsx" {
			r, o = sameDecimals(unquoteCSV(r)), sameDecimals(o)
		}
		recall, precision := compare(words(r, loose), words(o, loose))
		fmt.Printf("%7.3f %7.3f %6d %s\n", recall, precision, len(words(r, false)), filepath.Base(name))
	}
}
