package extract

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ooxmlKind is what an Office Open XML package must be to be read as XLSX or PPTX: the
// content types its main part may have (the plain kind first; then its macro-enabled,
// template and slide show variants, whose parts are the same: macros are never run, and
// vbaProject.bin is not read), the part's usual name (when the package relationships name
// none), and what the person can save the file as when it is another kind.
type ooxmlKind struct {
	contentTypes []string
	part, name   string
}

var (
	xlsxKind = ooxmlKind{[]string{
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
		"application/vnd.ms-excel.sheet.macroEnabled.main+xml",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml",
		"application/vnd.ms-excel.template.macroEnabled.main+xml",
	}, "xl/workbook.xml", "an Excel workbook (.xlsx)"}
	pptxKind = ooxmlKind{[]string{
		"application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
		"application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml",
		"application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml",
		"application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml",
		"application/vnd.openxmlformats-officedocument.presentationml.template.main+xml",
		"application/vnd.ms-powerpoint.template.macroEnabled.main+xml",
	}, "ppt/presentation.xml", "a PowerPoint presentation (.pptx)"}
)

// openOOXML opens an XLSX or PPTX package and finds its main part, which the package's
// [Content_Types].xml must give one of kind's content types: a macro-enabled workbook or
// presentation (.xlsm, .pptm), a template (.xltx, .potx) or a slide show (.ppsx) is read as
// its plain kind; a binary workbook (.xlsb) or a package of the other kind, renamed or not,
// is refused as unsupported, and a package without its content types or main part as
// damaged. An OLE compound file is an encrypted one.
func openOOXML(b *budget, data []byte, kind ooxmlKind) (*archive, string, error) {
	if bytes.HasPrefix(data, []byte{0xD0, 0xCF, 0x11, 0xE0}) {
		return nil, "", fmt.Errorf("%w (or it is an old .xls or .ppt file; save it as %s without a password)", ErrEncrypted, kind.name)
	}
	a, err := openArchive(b, data)
	if err != nil {
		return nil, "", err
	}
	main := officeDocumentPart(a)
	if main == "" || !a.has(main) {
		main = kind.part
	}
	if !a.has(main) {
		return nil, "", fmt.Errorf("%w: %s is missing", ErrCorrupt, kind.part)
	}
	if !a.has("[Content_Types].xml") {
		return nil, "", fmt.Errorf("%w: [Content_Types].xml is missing", ErrCorrupt)
	}
	var override, def string
	ext := main[strings.LastIndexByte(main, '.')+1:]
	err = a.walkXML("[Content_Types].xml", func(tok xml.Token) error {
		if t, ok := tok.(xml.StartElement); ok {
			switch t.Name.Local {
			case "Override":
				if strings.EqualFold(strings.TrimPrefix(attr(t, "PartName"), "/"), main) {
					override = attr(t, "ContentType")
				}
			case "Default":
				if strings.EqualFold(attr(t, "Extension"), ext) {
					def = attr(t, "ContentType")
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	typ := override
	if typ == "" {
		typ = def
	}
	if !slices.Contains(kind.contentTypes, typ) {
		what := ooxmlKinds[typ]
		if what == "" {
			what = "of content type " + strconv.Quote(typ)
		}
		return nil, "", fmt.Errorf("%w: it is %s, not %s", ErrUnsupported, what, kind.name)
	}
	return a, main, nil
}

// ooxmlKinds names the kinds of workbook and presentation by their main part's content
// type, for the refusal of one read as the other kind or of a binary workbook.
var ooxmlKinds = map[string]string{
	"application/vnd.ms-excel.sheet.macroEnabled.main+xml":                            "a macro-enabled workbook (.xlsm)",
	"application/vnd.ms-excel.template.macroEnabled.main+xml":                         "a macro-enabled Excel template (.xltm)",
	"application/vnd.ms-excel.sheet.binary.macroEnabled.main":                         "a binary workbook (.xlsb)",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml":   "an Excel template (.xltx)",
	"application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml":                "a macro-enabled presentation (.pptm)",
	"application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml":                   "a macro-enabled slide show (.ppsm)",
	"application/vnd.ms-powerpoint.template.macroEnabled.main+xml":                    "a macro-enabled PowerPoint template (.potm)",
	"application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml": "a slide show (.ppsx)",
	"application/vnd.openxmlformats-officedocument.presentationml.template.main+xml":  "a PowerPoint template (.potx)",
	xlsxKind.contentTypes[0]: xlsxKind.name,
	pptxKind.contentTypes[0]: pptxKind.name,
}

// partOfType is the first relationship of part whose type ends in /suffix, as its
// archive path ("" for none there).
func partOfType(a *archive, part, suffix string) string {
	for _, r := range relationships(a, part) {
		if !r.external && strings.HasSuffix(r.typ, "/"+suffix) && a.has(r.target) {
			return r.target
		}
	}
	return ""
}

// relTargets maps part's relationship ids to their archive paths (internal ones only).
func relTargets(a *archive, part string) map[string]string {
	m := map[string]string{}
	for _, r := range relationships(a, part) {
		if !r.external {
			m[r.id] = r.target
		}
	}
	return m
}

// relID is the relationship id an element names (r:id), not its own id attribute (a
// slide list's sldId has both).
func relID(t xml.StartElement) string {
	for _, a := range t.Attr {
		if a.Name.Local == "id" && a.Name.Space != "" {
			return a.Value
		}
	}
	return ""
}
