package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"

	"edgechat/documents/extract"
)

func init() {
	register(Command{Name: "extract", Summary: "print the text EdgeChat reads from a document (what the model is given)", Run: runExtract})
}

// extractJSON is what extract --json prints.
type extractJSON struct {
	File     string            `json:"file"`
	Format   string            `json:"format,omitempty"`
	Pages    int               `json:"pages,omitempty"`
	Sections []extract.Section `json:"sections,omitempty"`
	// Scanned are the scanned pages of a PDF with text (images without text of their own);
	// Unread are those whose text was not recognized (no --ocr), and Note says so.
	Scanned []int  `json:"scanned_pages,omitempty"`
	Unread  []int  `json:"unread_pages,omitempty"`
	Note    string `json:"note,omitempty"`
	Error   string `json:"error,omitempty"`
	// Reason is the short cause of Error: unsupported, too_big, too_slow, no_text,
	// encrypted, damaged or missing.
	Reason string `json:"reason,omitempty"`
}

func runExtract(env Env) error {
	fs := flag.NewFlagSet("extract", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	asJSON := fs.Bool("json", false, "print the pages or headings and their text as JSON (with the reason when it cannot be read)")
	useOCR := fs.Bool("ocr", false, "read a scanned PDF (pages of images), or the scanned pages of a PDF with text, with text recognition (tesseract), page by page")
	tesseract := fs.String("tesseract", "", "the tesseract program for --ocr (default: the one on PATH)")
	langs := fs.String("ocr-langs", "eng", "tesseract's languages for --ocr, joined by + (eng+deu)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: edgechat extract [--json] [--ocr [--tesseract PATH] [--ocr-langs eng]] FILE")
		fmt.Fprintln(fs.Output(), "Prints the text EdgeChat reads from FILE: PDF pages end with a form feed, as pdftotext")
		fmt.Fprintln(fs.Output(), "writes them; other formats print each heading before its text.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorderFlags(env.Args)); err != nil {
		return errUsage
	}
	if !*useOCR && (*tesseract != "" || *langs != "eng") {
		fmt.Fprintln(fs.Output(), "--tesseract and --ocr-langs go with --ocr")
		return errUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	path := fs.Arg(0)
	doc, err := extract.File(ctx, path, nil)
	var unread []int
	note := ""
	switch {
	case *useOCR && extract.IsScan(err):
		var sections []extract.Section
		if sections, err = recognize(ctx, env.Stderr, path, *tesseract, *langs, nil); err == nil { // extractocr.go
			doc = &extract.Document{Format: "pdf", Sections: sections}
		}
	case err == nil:
		unread, note, err = readScanned(ctx, env.Stderr, doc, path, *useOCR, *tesseract, *langs)
	}
	if *asJSON {
		out := extractJSON{File: path}
		if err != nil {
			out.Error, out.Reason = err.Error(), reasonOf(err)
		} else {
			out.Format, out.Sections = doc.Format, doc.Sections
			out.Scanned, out.Unread, out.Note = doc.Scanned, unread, note
			if doc.Format == "pdf" && len(doc.Sections) > 0 {
				out.Pages = doc.Sections[len(doc.Sections)-1].Page
			}
			if doc.Format == "pdf" { // a last page left unread as a scan counts too
				out.Pages = max(out.Pages, slices.Max(append([]int{0}, doc.Scanned...)))
			}
		}
		if werr := writeJSON(env.Stdout, out); werr != nil {
			return werr
		}
		if err != nil {
			return errQuiet
		}
		return nil
	}
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(env.Stderr, note)
	}
	_, err = io.WriteString(env.Stdout, plainText(doc))
	return err
}

// reorderFlags lets flags follow the file name ("extract a.pdf --json").
func reorderFlags(args []string) []string {
	var flags, rest []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
		} else {
			rest = append(rest, a)
		}
	}
	return append(flags, rest...)
}

// plainText writes a document as text: a PDF's pages each ended by a form feed (pages
// without text stay as empty pages), other formats' headings on lines of their own
// before their text.
func plainText(doc *extract.Document) string {
	var b strings.Builder
	if doc.Format == "pdf" {
		page := 1
		for _, s := range doc.Sections {
			for ; page < s.Page; page++ {
				b.WriteString("\f")
			}
			b.WriteString(s.Text)
			b.WriteString("\n\f")
			page++
		}
		return b.String()
	}
	var prev []string
	for _, s := range doc.Sections {
		path := strings.Split(s.Heading, " › ")
		if s.Heading == "" {
			path = nil
		}
		same := 0 // the levels this section shares with the one before, not written again
		for same < len(path) && same < len(prev) && path[same] == prev[same] {
			same++
		}
		for _, h := range path[same:] {
			b.WriteString(h)
			b.WriteString("\n\n")
		}
		prev = path
		b.WriteString(s.Text)
		b.WriteString("\n\n")
	}
	return b.String()
}

// reasonOf names the reason an *extract.Unreadable wraps.
func reasonOf(err error) string {
	for reason, name := range map[error]string{
		extract.ErrUnsupported: "unsupported", extract.ErrTooBig: "too_big", extract.ErrTooSlow: "too_slow",
		extract.ErrNoText: "no_text", extract.ErrEncrypted: "encrypted", extract.ErrCorrupt: "damaged",
		extract.ErrMissing: "missing",
	} {
		if errors.Is(err, reason) {
			return name
		}
	}
	return "damaged"
}
