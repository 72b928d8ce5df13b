// Package pdftext reads the text of PDF pages as a person reads it: glyphs placed by the
// text state and the transformation matrices, decoded through ToUnicode maps, font
// encodings, glyph names and embedded font programs, then put into words, lines, blocks and
// columns by their positions, with ligatures spelled out, hyphenated line ends rejoined and
// right-to-left runs in logical order. Objects are read with github.com/ledongthuc/pdf;
// content streams and fonts are interpreted here, within the caller's budgets. Files
// encrypted with an empty user password that the object reader cannot decrypt are
// decrypted here first (decrypt.go).
package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ledongthuc/pdf"
)

// Why a PDF cannot be read. Budget errors from Options.Limit come back as they are.
var (
	ErrEncrypted = errors.New("it is protected by a password")
	ErrDamaged   = errors.New("it is damaged")
	ErrTooBig    = errors.New("it is too big")
	// errStopped wraps the context's error.
	errStopped = errors.New("stopped")
)

// Options bound and watch one reading.
type Options struct {
	// Context stops the reading when done.
	Context context.Context
	// Limit wraps the reader of each stream so that it counts against the caller's budgets
	// (what names the stream in errors); nil reads without limits.
	Limit func(r io.Reader, what string) io.Reader
	// Progress is told pages read of all; nil for none.
	Progress func(done, total int)
	// MaxPages and MaxDepth bound the page tree (0: 20,000 pages, 100 levels).
	MaxPages, MaxDepth int
	// Text is told the bytes of text of each page read; an error stops the reading.
	Text func(n int) error
	// ImagePage says which pages' images ReadImages hands on (nil: every page's).
	ImagePage func(page int) bool
	// images is given each image the pages draw (ReadImages, images.go).
	images func(Image) error
}

// Page is the text of one page. Err says why it could not be read, when it could not (the
// other pages are read all the same).
type Page struct {
	Text string
	Err  error
	// ImageCover is the share of the page (0–1) its images cover where they could hold
	// text to recognize (cover.go): about 1 for a scanned page.
	ImageCover float64
}

// reader is one document being read.
type reader struct {
	opt      Options
	pdf      *pdf.Reader
	fonts    map[string]*font
	fallback *font
	field    *font        // fieldFont's
	data     []byte       // the file as the object reader reads it
	silent   map[int]bool // silentAnnots'; nil before it is read
	// imgs is the page being read, for ReadImages (images.go).
	imgs imagePage
	// needAppear is 1 when the form asks for its fields' appearances to be made from
	// their values, 2 when not, 0 before it is read (annots.go)
	needAppear uint8
	ocg        hiddenLayers // the layers turned off (optional.go)
	// glyphs is the last page's glyph buffer, kept for the next page to draw into.
	glyphs []glyph
	// lost says why the page tree lost a page or a page's entry (pages.go), "" if none.
	lost string
}

// keptGlyphs bounds the glyph buffer a reader keeps from page to page (~3.5 MB).
const keptGlyphs = 1 << 16

// maxFonts bounds the fonts kept parsed at once.
const maxFonts = 4096

// Read returns the text of each page of the PDF in data.
func Read(data []byte, opt Options) (pages []Page, err error) {
	if opt.Context == nil {
		opt.Context = context.Background()
	}
	if opt.MaxPages == 0 {
		opt.MaxPages = 20_000
	}
	if opt.MaxDepth == 0 {
		opt.MaxDepth = 100
	}
	defer func() {
		if p := recover(); p != nil { // the object reader panics on some damaged files
			pages, err = nil, damaged(p)
		}
	}()
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		if i := bytes.Index(data[:min(len(data), 1024)], []byte("%PDF-")); i > 0 {
			data = data[i:] // junk before the header, as mail gateways leave it
		} else if headerless(data) {
			data = append([]byte("%PDF-1.7\n"), data...) // offsets shift: the scan of repair.go finds the objects
		} else {
			return nil, fmt.Errorf("%w: it does not start like a PDF", ErrDamaged)
		}
	}
	if len(data) > 8 && !(data[5] == '1' && data[6] == '.' && data[7] >= '0' && data[7] <= '7' && (data[8] == '\r' || data[8] == '\n')) {
		// The object reader checks for "%PDF-1.x" and a line end; 2.0 files and odd
		// headers are read the same.
		data = bytes.Clone(data)
		copy(data, "%PDF-1.7\n")
	}
	// encrypted files that open without a password (decrypt.go)
	sec, secErr := openSecurity(data)
	if errors.Is(secErr, errPassword) {
		return nil, secErr
	}
	var r *reader
	var list []pageRef
	if sec != nil && !sec.libraryReadsIt {
		var plain []byte
		if plain, err = decryptedCopy(data, sec); err == nil {
			r, list, err = open(plain, opt)
		}
	} else {
		r, list, err = open(data, opt)
		if err != nil && sec != nil {
			if plain, err2 := decryptedCopy(data, sec); err2 == nil {
				if r2, list2, err2 := open(plain, opt); err2 == nil && len(list2) > 0 {
					r, list, err = r2, list2, nil
				}
			}
		}
	}
	if err != nil && secErr != nil {
		return nil, secErr
	}
	if err == nil && len(list) == 0 {
		err = fmt.Errorf("%w: it has no pages", ErrDamaged)
	}
	// a page tree that lost an object it could not read (pages.go): the repairs below
	// may read it; if they do not, the pages read stand
	var partial *reader
	var partialList []pageRef
	if err == nil && r.lost != "" {
		partial, partialList = r, list
		err = fmt.Errorf("%w: %s", ErrDamaged, r.lost)
	}
	var scanErr error // why the copy found by scanning did not open
	if err != nil && errors.Is(err, ErrDamaged) && !errors.Is(err, ErrEncrypted) {
		// a cross-reference section that is missing or points wrong: find the objects
		// by scanning, as pdftotext does (repair.go)
		if fixed, ok := rebuiltXref(data); ok {
			r2, list2, err2 := open(fixed, opt)
			if err2 == nil && len(list2) > 0 && (partial == nil || r2.lost == "") {
				r, list, err = r2, list2, nil
			}
			scanErr = err2
		}
	}
	f, ok := repairFor(err)
	if !ok && err != nil {
		// a fault of syntax behind the cross-reference section's (qpdf's bad*.pdf: a table
		// that points wrong, and objects without their endobj)
		f, ok = repairFor(scanErr)
	}
	if ok && sec == nil {
		// a fault of syntax pdftotext passes over: opened again without it (rereads.go)
		if r2, list2, ok := f.repairedOpen(data, opt); ok && (partial == nil || r2.lost == "") {
			r, list, err = r2, list2, nil
		}
	}
	if err != nil && partial != nil {
		r, list, err = partial, partialList, nil
	}
	if err != nil {
		return nil, err
	}
	pages = make([]Page, len(list))
	for i, p := range list {
		if err := r.alive(); err != nil {
			return nil, err
		}
		r.imgs = imagePage{page: i + 1, pages: len(list)}
		pages[i].Text, pages[i].ImageCover, pages[i].Err = r.page(p)
		if pages[i].Err != nil && fatal(pages[i].Err) {
			return nil, pages[i].Err
		}
		if opt.Text != nil {
			if err := opt.Text(len(pages[i].Text)); err != nil {
				return nil, err
			}
		}
		if opt.Progress != nil {
			opt.Progress(i+1, len(list))
		}
	}
	if sec == nil {
		// pages lost to a fault of syntax pdftotext passes over are read again from a
		// copy without it (rereads.go)
		if err := rereadPages(data, opt, list, pages); err != nil {
			return nil, err
		}
	}
	resolveHyphens(pages)
	reversedSectionNumbers(pages) // sectionnumbers.go
	return pages, nil
}

// open opens the object reader on data and lists its pages.
func open(data []byte, opt Options) (r *reader, list []pageRef, err error) {
	defer func() {
		if p := recover(); p != nil { // the object reader panics on some damaged files
			r, list, err = nil, nil, damaged(p)
		}
	}()
	if fault := xrefFault(data); fault != "" { // the object reader's table would not fit in memory, or its walk would not end (xrefsize.go)
		return nil, nil, fmt.Errorf("%w: %s", ErrDamaged, fault)
	}
	pr, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, openError(err)
	}
	if objectStreamLoop(pr) { // asking for any of its objects would overflow the stack (objstmloop.go)
		return nil, nil, fmt.Errorf("%w: an object stream is listed as stored in itself", ErrDamaged)
	}
	r = &reader{opt: opt, pdf: pr, fonts: map[string]*font{}, data: data}
	list, err = r.pageList()
	return r, list, err
}

// fatal errors stop the whole document; others lose one page.
func fatal(err error) bool {
	return errors.Is(err, ErrTooBig) || errors.Is(err, errStopped) || !errors.Is(err, ErrDamaged)
}

func damaged(p any) error {
	if err, ok := p.(error); ok && (errors.Is(err, errStopped) || errors.Is(err, ErrDamaged)) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrDamaged, p)
}

// decodeError marks an error of a stream's own data (bad compression, an unknown filter),
// as against the budgets' errors.
type decodeError struct{ err error }

func (e decodeError) Error() string { return e.err.Error() }

type taggedReader struct{ r io.Reader }

func (t taggedReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF {
		err = decodeError{err}
	}
	return n, err
}

// openError maps the object reader's errors to the reasons a person can act on.
func openError(err error) error {
	msg := err.Error()
	if errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(msg, "encrypt") {
		return fmt.Errorf("%w (%v)", ErrEncrypted, err)
	}
	return fmt.Errorf("%w: %v", ErrDamaged, err)
}

// alive returns why to stop, when the context is done.
func (r *reader) alive() error {
	if err := r.opt.Context.Err(); err != nil {
		return fmt.Errorf("%w: %w", errStopped, err)
	}
	return nil
}

// stream reads a stream's data within the budgets.
func (r *reader) stream(v pdf.Value, what string) (data []byte, err error) {
	defer func() {
		if p := recover(); p != nil { // an unknown filter or bad compressed data
			data, err = nil, damaged(p)
		}
	}()
	var rd io.Reader
	if r.ownFilters(v) || r.misMeasured(v) { // LZW, ASCIIHex, RunLength (filters.go); a wrong /Length (streamlen.go)
		raw, err := r.rawStream(v)
		if err == nil {
			rd, err = decodeFilters(raw, v)
		}
		if err != nil {
			return nil, damaged(err)
		}
	} else {
		rc := v.Reader()
		defer rc.Close()
		rd = rc
	}
	rd = taggedReader{rd}
	if r.opt.Limit != nil {
		rd = r.opt.Limit(rd, what)
	}
	data, err = io.ReadAll(rd)
	if errors.As(err, new(decodeError)) {
		err = nil // keep what decompressed before the damage, as readers do
	}
	if err == nil && v.Key("Filter").Kind() == pdf.Null && looksZlib(data) {
		data, err = r.inflateUnfiltered(data, what) // nofilter.go
	}
	if err == nil {
		err = r.alive()
	}
	return data, err
}

// font returns the parsed font of a font dictionary.
func (r *reader) font(v pdf.Value) *font {
	if v.Kind() != pdf.Dict {
		return r.fallbackFont()
	}
	key := v.String()
	if f, ok := r.fonts[key]; ok {
		return f
	}
	f := r.loadFontSafe(v)
	if len(r.fonts) >= maxFonts {
		clear(r.fonts)
	}
	r.fonts[key] = f
	return f
}

func (r *reader) loadFontSafe(v pdf.Value) (f *font) {
	defer func() {
		if p := recover(); p != nil {
			f = r.fallbackFont()
		}
	}()
	return r.loadFont(v)
}

// fallbackFont reads codes as Latin text, for text shown without a usable font.
func (r *reader) fallbackFont() *font {
	if r.fallback == nil {
		r.fallback = &font{simple: true, text: *standardEncoding, guessed: true}
		for c := range r.fallback.width {
			r.fallback.width[c] = 0.5
		}
	}
	return r.fallback
}

// page reads one page: its content streams in order, then its glyphs laid out as text.
func (r *reader) page(p pageRef) (text string, cover float64, err error) {
	defer func() {
		if e := recover(); e != nil {
			text, err = "", damaged(e)
		}
	}()
	contents := p.v.Key("Contents")
	var content []byte
	switch contents.Kind() {
	case pdf.Stream:
		content, err = r.stream(contents, "a page")
	case pdf.Array:
		for i := range min(contents.Len(), 10_000) {
			data, e := r.stream(contents.Index(i), "a page")
			if e != nil {
				err = e
				if fatal(e) {
					break
				}
				continue
			}
			content = append(content, data...)
			content = append(content, '\n')
		}
	}
	if err != nil && fatal(err) {
		return "", 0, err
	}
	pg := &page{doc: r, gs: gstate{ctm: identity, scale: 1}, tm: identity, tlm: identity, glyphs: r.glyphs[:0], box: mediaBox(p.media), visible: visibleBox(p)}
	if e := pg.run(content, p.res); e != nil {
		return "", 0, e
	}
	if e := pg.drawAnnots(p.v); e != nil {
		return "", 0, e
	}
	pg.settleVertical() // vertical.go
	text = layout(pg.glyphs)
	if cap(pg.glyphs) <= keptGlyphs {
		clear(pg.glyphs) // let go of the page's strings
		r.glyphs = pg.glyphs[:0]
	}
	return text, min(pg.cover, 1), err
}

// headerless says whether data, which lacks "%PDF-" at its start, is a PDF whose header
// line is broken or missing ("%PDF1.4", "%PDF.1.4", "%1.4", none: openpreserve's hand-built
// corpus), which pdftotext reads: an object "N G obj" within its first 1,024 bytes and a
// "trailer" or "startxref" within its last 2,048. Other files (pictures, archives named
// .pdf) stay refused as not starting like a PDF.
func headerless(data []byte) bool {
	hs := objectHeaders(data[:min(len(data), 1024)])
	tail := data[max(0, len(data)-2048):]
	return len(hs) > 0 && (bytes.Contains(tail, []byte("trailer")) || bytes.Contains(tail, []byte("startxref")))
}
