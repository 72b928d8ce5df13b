// Command doccheck measures how well `edgechat extract` reads real documents against the
// reference readers: poppler's pdftotext for PDFs, pandoc for DOCX, ODT and EPUB. It
// downloads Debian documentation packages into the cache (apt-get download, dpkg-deb -x),
// finds the documents in them, and prints per file the word recall and precision against
// the reference, and both readers' time and peak memory.
//
//	go build -o /tmp/edgechat . && go run ./tools/doccheck --edgechat /tmp/edgechat
//	go run ./tools/doccheck --edgechat /tmp/edgechat --files a.pdf,b.docx
//
// Words are compared as multisets of white-space separated tokens (--loose: lower case,
// without the punctuation around them).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"edgechat/internal/paths"
)

// Packages holds Debian packages whose documentation has PDFs from many producers and
// scripts (pdfTeX, XeTeX, LuaTeX, dvipdfmx, Ghostscript, ReportLab, …).
var defaultPackages = []string{
	"r-doc-pdf", "gnuplot-doc", "asymptote-doc", "octave-doc", "python-reportlab-doc",
	"developers-reference", "xfig-doc", "zsh-doc", "fonts-sil-abyssinica", "maxima-doc",
}

func main() {
	pkgs := flag.String("packages", strings.Join(defaultPackages, ","), "Debian packages to take documents from")
	files := flag.String("files", "", "documents to check instead of packages' (comma-separated)")
	bin := flag.String("edgechat", "edgechat", "the edgechat binary to run")
	perPkg := flag.Int("per-package", 6, "documents taken from each package at most")
	maxMB := flag.Int("max-mb", 30, "skip documents larger than this")
	loose := flag.Bool("loose", false, "compare words lower-cased, without punctuation around them")
	keep := flag.String("keep", "", "write each reader's text to this folder")
	flag.Parse()
	var docs []string
	if *files != "" {
		docs = strings.Split(*files, ",")
	} else {
		for _, p := range strings.Split(*pkgs, ",") {
			found, err := packageDocs(p, *perPkg, int64(*maxMB)<<20)
			if err != nil {
				fmt.Fprintf(os.Stderr, "doccheck: %s: %v\n", p, err)
				continue
			}
			docs = append(docs, found...)
		}
	}
	var recalls, precisions []float64
	fmt.Printf("%-58s %7s %7s %8s %8s %7s %7s\n", "file", "recall", "prec", "ours s", "ref s", "ours MB", "ref MB")
	for _, d := range docs {
		ours, ourStat, err := run(*bin, "extract", d)
		if err != nil {
			fmt.Printf("%-58s  edgechat: %v\n", short(d), firstLine(err.Error()))
			continue
		}
		ref, refStat, err := reference(d)
		if err != nil {
			fmt.Printf("%-58s  reference: %v\n", short(d), firstLine(err.Error()))
			continue
		}
		if *keep != "" {
			base := filepath.Join(*keep, strings.ReplaceAll(short(d), "/", "_"))
			os.WriteFile(base+".ours.txt", ours, 0o644)
			os.WriteFile(base+".ref.txt", ref, 0o644)
		}
		r, p := compare(words(ref, *loose), words(ours, *loose))
		if len(words(ref, false)) < 50 {
			fmt.Printf("%-58s  reference has %d words: not comparable\n", short(d), len(words(ref, false)))
			continue
		}
		recalls, precisions = append(recalls, r), append(precisions, p)
		fmt.Printf("%-58s %7.3f %7.3f %8.2f %8.2f %7.0f %7.0f\n", short(d), r, p,
			ourStat.secs, refStat.secs, ourStat.mb, refStat.mb)
	}
	if len(recalls) > 0 {
		fmt.Printf("\n%d files: median recall %.3f (min %.3f), median precision %.3f (min %.3f)\n",
			len(recalls), median(recalls), slices.Min(recalls), median(precisions), slices.Min(precisions))
	}
}

// packageDocs downloads a package into the cache once and lists its documents.
func packageDocs(pkg string, limit int, maxBytes int64) ([]string, error) {
	cache := filepath.Join(paths.CacheDir(), "doccheck")
	root := filepath.Join(cache, "root", pkg)
	if _, err := os.Stat(root); err != nil {
		debs := filepath.Join(cache, "debs")
		os.MkdirAll(debs, 0o755)
		cmd := exec.Command("apt-get", "download", pkg)
		cmd.Dir = debs
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("apt-get download: %v: %s", err, out)
		}
		matches, _ := filepath.Glob(filepath.Join(debs, pkg+"_*.deb"))
		if len(matches) == 0 {
			return nil, fmt.Errorf("no .deb downloaded")
		}
		os.MkdirAll(root, 0o755)
		if out, err := exec.Command("dpkg-deb", "-x", matches[len(matches)-1], root).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("dpkg-deb: %v: %s", err, out)
		}
	}
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		name := strings.ToLower(d.Name())
		if strings.HasSuffix(name, ".gz") && isDoc(strings.TrimSuffix(name, ".gz")) {
			plain := strings.TrimSuffix(p, ".gz")
			if _, err := os.Stat(plain); err != nil {
				exec.Command("sh", "-c", "gunzip -kf "+shellQuote(p)).Run()
			}
			p, name = plain, strings.TrimSuffix(name, ".gz")
		}
		if isDoc(name) {
			if st, err := os.Stat(p); err == nil && st.Size() <= maxBytes && st.Mode().IsRegular() {
				out = append(out, p)
			}
		}
		return nil
	})
	sort.Strings(out)
	out = slices.Compact(out)
	if len(out) > limit { // spread the choice over the package
		step := float64(len(out)) / float64(limit)
		var picked []string
		for i := range limit {
			picked = append(picked, out[int(float64(i)*step)])
		}
		out = picked
	}
	return out, nil
}

func isDoc(name string) bool {
	for _, ext := range []string{".pdf", ".docx", ".odt", ".epub"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

type stat struct{ secs, mb float64 }

// run runs a command and returns its output, wall time and peak resident memory (by GNU
// time, which reads the command's own rusage; the Go parent's would count itself).
func run(name string, args ...string) ([]byte, stat, error) {
	report, err := os.CreateTemp("", "doccheck-time")
	if err != nil {
		return nil, stat{}, err
	}
	report.Close()
	defer os.Remove(report.Name())
	cmd := exec.Command("/usr/bin/time", append([]string{"-o", report.Name(), "-f", "%e %M", name}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var st stat
	if b, rerr := os.ReadFile(report.Name()); rerr == nil {
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		var kb float64
		fmt.Sscanf(lines[len(lines)-1], "%f %f", &st.secs, &kb)
		st.mb = kb / 1024
	}
	if err != nil {
		return nil, st, fmt.Errorf("%v: %s", err, errOut.String())
	}
	return out.Bytes(), st, nil
}

// reference reads a document with the reference reader.
func reference(doc string) ([]byte, stat, error) {
	if strings.HasSuffix(strings.ToLower(doc), ".pdf") {
		return run("pdftotext", "-enc", "UTF-8", doc, "-")
	}
	return run("pandoc", "-t", "plain", "--wrap=none", doc)
}

// words splits text into tokens. Directional formatting characters (which pdftotext puts
// around right-to-left runs) are dropped and presentation forms spelled out (NFKC) on both
// sides: they are not words.
func words(text []byte, loose bool) []string {
	var out []string
	for _, w := range strings.Fields(normalize(string(text))) {
		if loose {
			w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
			if w == "" {
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

// compare is the recall and precision of got's words against want's, as multisets.
func compare(want, got []string) (recall, precision float64) {
	count := map[string]int{}
	for _, w := range want {
		count[w]++
	}
	common := 0
	for _, w := range got {
		if count[w] > 0 {
			count[w]--
			common++
		}
	}
	if len(want) > 0 {
		recall = float64(common) / float64(len(want))
	}
	if len(got) > 0 {
		precision = float64(common) / float64(len(got))
	}
	return recall, precision
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func short(p string) string {
	if i := strings.Index(p, "/root/"); i >= 0 {
		p = p[i+len("/root/"):]
	}
	p = strings.Replace(p, "/usr/share/doc/", ":", 1)
	if len(p) > 58 {
		p = "…" + p[len(p)-57:]
	}
	return p
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func normalize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0x202A && r <= 0x202E, r == 0x200E, r == 0x200F, r >= 0x2066 && r <= 0x2069:
		case r >= 0xFB00 && r <= 0xFDFF, r >= 0xFE70 && r <= 0xFEFF:
			b.WriteString(norm.NFKC.String(string(r)))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
