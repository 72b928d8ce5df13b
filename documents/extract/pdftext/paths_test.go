package pdftext

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// pathText is the text of the PDF file name in testdata/paths (made by its make.sh), its
// pages apart.
func pathText(t *testing.T, name string) (string, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "paths", name))
	if err != nil {
		t.Fatal(err)
	}
	return pagesText(t, data)
}

// TestIncrementalUpdates: a file saved twice by incremental updates (each with its own
// xref section and /Prev) reads as its last version: page one's replaced content stream,
// page two as first written, the page the second update added; and so does an update whose
// cross-reference section is a stream.
func TestIncrementalUpdates(t *testing.T) {
	got, err := pathText(t, "incremental.pdf")
	if err != nil {
		t.Fatal(err)
	}
	want := "The updated page one, saved incrementally.\n---\nPage two stays as it was written first.\n---\nA third page added by the second update."
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// an update whose cross-reference section is a stream, over a classic table
	if got, err = pathText(t, "incremental-xrefstm.pdf"); err != nil {
		t.Fatal(err)
	}
	if want := "Page one as an update with an xref stream left it."; got != want {
		t.Errorf("xref stream update: got %q, want %q", got, want)
	}
}

// TestStreamCryptFilter: streams of an encrypted file with their own /Crypt filter (ISO
// 32000-1 §7.6.5) are decrypted as the filter they name says: Identity stored in the clear
// where the document's streams are encrypted, StdCF (AES-128) where they are not. The
// object reader knew no Crypt filter and lost those pages ("unknown filter Crypt").
func TestStreamCryptFilter(t *testing.T) {
	for name, want := range map[string]string{
		"crypt-identity.pdf": "Page one is encrypted with the document's default stream filter.\n---\nPage two has its own Identity crypt filter: it is stored in the clear.",
		"crypt-named.pdf":    "Page one is encrypted with the document's default stream filter.\n---\nPage two is encrypted by the crypt filter it names, then deflated.",
	} {
		t.Run(name, func(t *testing.T) {
			got, err := pathText(t, name)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got %q\nwant %q", got, want)
			}
		})
	}
}

// TestEmptyOwnerPassword: a file with a user password and an empty owner password opens
// with the empty owner password (Algorithms 7 and 12), as pdftotext opens it, in RC4
// (R 3) and AES-256 (R 6, qpdf's, with /Perms).
func TestEmptyOwnerPassword(t *testing.T) {
	got, err := pathText(t, "owner-empty-r3.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if want := "The owner password is empty, so the file opens without the user's."; got != want {
		t.Errorf("R 3: got %q, want %q", got, want)
	}
	want, err := readText(t, "plain.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if got, err = pathText(t, "owner-empty-r6.pdf"); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("R 6: got %q\nwant %q", got, want)
	}
	if !strings.Contains(want, "restricts printing") {
		t.Fatalf("plain.pdf reads %q", want)
	}
}

// TestFormFields: a form's filled fields read as pdftotext reads them, in their place on the
// page: with /NeedAppearances each field's value as made from it ("✓" for a checked box),
// else the appearance streams drawn (the box's "X") and the value of a field without one;
// an empty field adds nothing. The page's own text alone was read before.
func TestFormFields(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "paths", "acroform.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	drawn := bytes.Replace(data, []byte("/NeedAppearances true"), []byte("/NeedAppearancez true"), 1)
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"made from values": {data, "Application form\nName: Ada Lovelace\n\nCity:\n\nMarylebone\n\nMember: ✓\n\nNotes:"},
		"appearances":      {drawn, "Application form\nName: Ada Lovelace\n\nCity:\n\nMarylebone\n\nMember: X\n\nNotes:"},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := pagesText(t, c.data)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestFieldValueHelpers: a default appearance's font size (its first Tf; 0 to fit).
func TestFieldValueHelpers(t *testing.T) {
	for da, want := range map[string]float64{"0 0 0 rg /F3 12 Tf": 12, "/Helv 0 Tf 0 g": 0, "": 0, "/Helv Tf": 0, "/F1 9.5 Tf /F2 11 Tf": 9.5} {
		if got := fontSize(da); got != want {
			t.Errorf("fontSize(%q) = %v, want %v", da, got, want)
		}
	}
}

// TestUnreadableAnnotation: an annotation the object reader cannot read (a string with an
// escape it rejects, as visualFAQ-fr's pop-up notes hold: "\p") or with a damaged appearance
// loses itself only; it lost its page's whole text ("invalid escape sequence \p").
func TestUnreadableAnnotation(t *testing.T) {
	for name, annot := range map[string]string{
		"bad escape":          "<< /Type /Annot /Subtype /Text /Contents (see \\p here \\q) /Rect [0 0 10 10] /AP << /N 6 0 R >> >>",
		"appearance not form": "<< /Type /Annot /Subtype /Stamp /Rect [0 0 10 10] /AP << /N 4 0 R >> >>",
	} {
		t.Run(name, func(t *testing.T) {
			data := testdocs.RawPDF(1,
				[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
				[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
				[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 7 0 R >> >> /Contents 4 0 R /Annots [5 0 R] >>"),
				testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (Text of the page) Tj ET")),
				[]byte(annot),
				testdocs.Stream("/Type /XObject /Subtype /Form /BBox [0 0 10 10]", []byte("BT /F1 10 Tf (note) Tj ET")),
				[]byte(simpleFont("")),
			)
			got, err := pagesText(t, data)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, "Text of the page") {
				t.Errorf("got %q, want the page's text", got)
			}
		})
	}
}

// FuzzAnnots reads a page whose one annotation's dictionary and appearance stream are
// fuzzed, in a form that asks for appearances or not: drawAnnots, the appearance's
// placement and fieldValue must not panic or hang.
func FuzzAnnots(f *testing.F) {
	f.Add("/Subtype /Widget /FT /Tx /V (Ada) /Rect [10 10 200 30] /AP << /N 5 0 R >> /DA (/F1 10 Tf)", "BT /F1 10 Tf 2 4 Td (x) Tj ET", true)
	f.Add("/Subtype /Widget /FT /Btn /Ff 32768 /AS /On /Rect [0 0 0 0] /AP << /N << /On 5 0 R >> >>", "q 0 0 0 0 cm BT (y) Tj ET Q", false)
	f.Add("/Subtype /Widget /Parent << /FT /Ch /V [(a) <FEFF0042> (c\rd\ne)] >> /Rect [5 5 1 1] /DA (/X 0 Tf)", "", true)
	f.Add("/Subtype /Widget /FT /Ch /TI 1 /I [3 -1 99] /V [(b) 7] /Opt [(a) [(b) (B)] [(c)] 5] /Rect [0 0 50 1e9] /DA (/H 1e-9 Tf)", "", false)
	f.Add("/Subtype /FreeText /F 2 /Rect [1 2 3 4] /AP << /N 5 0 R >>", "BT /F1 1e30 Tf (z) Tj ET", false)
	f.Add("/Subtype /Stamp /Rect [0 0 100 100] /AP << /N 5 0 R >>", "BT /F1 10 Tf (a) Tj ET", false)
	f.Fuzz(func(t *testing.T, annot, ap string, need bool) {
		form := ""
		if need {
			form = " /AcroForm << /NeedAppearances true >>"
		}
		data := testdocs.RawPDF(1,
			[]byte("<< /Type /Catalog /Pages 2 0 R"+form+" >>"),
			[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
			[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 6 0 R >> >> /Annots [4 0 R] >>"),
			[]byte("<< "+annot+" >>"),
			testdocs.Stream("/Type /XObject /Subtype /Form /BBox [0 0 100 20] /Matrix [0 1 -1 0 0 0] /Resources << /Font << /F1 6 0 R >> >>", []byte(ap)),
			[]byte(simpleFont("")),
		)
		Read(data, Options{MaxPages: 10}) // must not panic or hang
	})
}

// TestSilentAnnots: annotations written out in the file or inside an object stream are read
// (a free-text note's appearance), and the links among them are found without reading
// each through the object reader (silentAnnots): one pass lists the three links, not the
// note.
func TestSilentAnnots(t *testing.T) {
	for _, name := range []string{"annots.pdf", "annots-objstm.pdf"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "paths", name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := pagesText(t, data)
			if err != nil {
				t.Fatal(err)
			}
			if want := "Quarterly figures\nSee the appendix for the totals.\n\nReviewer note: check the totals"; got != want {
				t.Errorf("got %q\nwant %q", got, want)
			}
			r, list, err := open(data, Options{Context: t.Context(), MaxPages: 10, MaxDepth: 10})
			if err != nil || len(list) != 1 {
				t.Fatal(err)
			}
			silent := r.silentAnnots()
			nums := annotNums(list[0].v.Key("Annots"))
			if len(nums) != 4 || len(silent) != 3 {
				t.Fatalf("annotations %v, silent %v: want 4 and the 3 links", nums, silent)
			}
			for i, n := range nums {
				if silent[n] != (i < 3) {
					t.Errorf("annotation %d (object %d): silent %v", i, n, silent[n])
				}
			}
		})
	}
}

// FuzzSilentAnnots reads object streams of any file for silentAnnots: headers, offsets and
// members out of order or out of range must not panic or hang.
func FuzzSilentAnnots(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "paths", "annots-objstm.pdf"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("1 0 obj << /Type /ObjStm /N 3 /First 4 /Filter /FlateDecode /Length 3 >> stream\nx\x9c\x03endstream"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &reader{data: data, opt: Options{Context: context.Background()}}
		r.silentAnnots()
	})
}
