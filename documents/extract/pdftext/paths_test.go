package pdftext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
// page two as first written, the page the second update added.
func TestIncrementalUpdates(t *testing.T) {
	got, err := pathText(t, "incremental.pdf")
	if err != nil {
		t.Fatal(err)
	}
	want := "The updated page one, saved incrementally.\n---\nPage two stays as it was written first.\n---\nA third page added by the second update."
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
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
