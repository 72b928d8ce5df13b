package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"edgechat/internal/paths"
)

// npmPDFPackages are npm packages (name@version) that ship real PDFs as test fixtures or
// manuals, used by no earlier set (issue 36's npm round, --set npm): IRS forms of Adobe
// LiveCycle Designer (pdf2json 0.7), the TraceMonkey paper in pdfeTeX, QuarkXPress through
// Distiller 8 and Word 2016 (pdf-parse 1.1), Skia, InDesign and Quartz (pdfreader), DVIPSONE
// through Distiller 4 and scans (pdf-extract), cairo, LibreOffice, ABBYY FineReader and
// Prince (pdf-merger-js), camlpdf's manuals (coherentpdf), OpenOffice.org, PDFKit and
// MuhammaraJS (node-signpdf), Chinese Word through DocuCom (pdf-table-extractor),
// Illustrator and pdftk/iText (hummus-recipe), and PDFTron's sample documents (a 1997
// QuarkXPress newsletter with LZW streams, a scientific paper, invoices, forms, an Outlook
// mail). Versions are pinned: later releases of most of them ship no fixtures.
var npmPDFPackages = []string{
	"pdf-parse@1.1.1", "pdf2json@0.7.1", "pdfreader@1.0.0", "pdf-extract@1.0.11", "pdf-image@2.0.0",
	"pdf-merger-js@5.1.2", "pdf2pic@3.2.0", "coherentpdf@2.5.5", "node-signpdf@1.5.1",
	"pdf-table-extractor@1.0.3", "hummus-recipe@1.9.3", "@pdftron/pdfnet-node-samples@12.1.0",
}

// npmDocs packs each npm package (name@version) into the cache once with `npm pack`,
// unpacks it, and lists its documents of the given kinds, at most limit from each
// package, each file's content taken once over all packages (forks ship the same fixtures).
func npmDocs(pkgs []string, kinds []string, limit int, maxBytes int64) []string {
	cache := filepath.Join(paths.CacheDir(), "doccheck", "npm")
	tgz := filepath.Join(cache, "tgz")
	os.MkdirAll(tgz, 0o755)
	seen := map[[32]byte]bool{}
	var out []string
	for _, pkg := range pkgs {
		root := filepath.Join(cache, pkg)
		if _, err := os.Stat(root); err != nil {
			file, err := npmPack(tgz, pkg)
			if err == nil {
				err = untar(file, root)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "doccheck: %s: %v\n", pkg, err)
				os.RemoveAll(root)
				continue
			}
		}
		var found []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !isDoc(strings.ToLower(d.Name()), kinds) {
				return nil
			}
			if st, err := os.Stat(p); err == nil && st.Size() <= maxBytes && st.Mode().IsRegular() {
				if sum, err := fileSum(p); err == nil && !seen[sum] {
					seen[sum] = true
					found = append(found, p)
				}
			}
			return nil
		})
		sort.Strings(found)
		if len(found) > limit {
			found = found[:limit]
		}
		out = append(out, found...)
	}
	return out
}

// npmPack fetches the tarball of pkg ("name@version", or a name alone for its latest) with
// npm's own client into dir, once: a tarball of that name and version already there is
// taken as it is. It returns the tarball's path.
func npmPack(dir, pkg string) (string, error) {
	if at := strings.LastIndex(pkg, "@"); at > 0 {
		// npm names a scoped package's tarball scope-name-version.tgz
		tgz := filepath.Join(dir, strings.ReplaceAll(strings.TrimPrefix(pkg[:at], "@"), "/", "-")+"-"+pkg[at+1:]+".tgz")
		if _, err := os.Stat(tgz); err == nil {
			return tgz, nil
		}
	}
	b, err := exec.Command("npm", "pack", pkg, "--silent", "--pack-destination", dir).Output()
	if err != nil {
		var msg []byte
		if e, ok := err.(*exec.ExitError); ok {
			msg = e.Stderr
		}
		return "", fmt.Errorf("npm pack: %v: %s", err, firstLine(string(msg)))
	}
	names := strings.Fields(string(b))
	if len(names) == 0 {
		return "", fmt.Errorf("npm pack named no tarball")
	}
	return filepath.Join(dir, names[len(names)-1]), nil
}

// untar unpacks the files named of the gzipped tarball tgz into dir, or all of it when
// none are named.
func untar(tgz, dir string, files ...string) error {
	os.MkdirAll(dir, 0o755)
	args := append([]string{"-xzf", tgz, "-C", dir, "--warning=no-unknown-keyword", "--no-same-owner"}, files...)
	if msg, err := exec.Command("tar", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("tar: %v: %s", err, firstLine(string(msg)))
	}
	return nil
}

func fileSum(p string) ([32]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return [32]byte{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return [32]byte{}, err
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}
