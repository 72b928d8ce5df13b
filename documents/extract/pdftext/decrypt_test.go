package pdftext

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readText is the text of the PDF file name in testdata/encrypted, its pages apart.
func readText(t *testing.T, name string) (string, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "encrypted", name))
	if err != nil {
		t.Fatal(err)
	}
	return pagesText(t, data)
}

// pagesText is the text Read gives of the PDF data, its pages apart; a page's error fails t.
func pagesText(t *testing.T, data []byte) (string, error) {
	t.Helper()
	pages, err := Read(data, Options{})
	if err != nil {
		return "", err
	}
	var text []string
	for i, p := range pages {
		if p.Err != nil {
			t.Errorf("page %d: %v", i+1, p.Err)
		}
		text = append(text, strings.TrimSpace(p.Text))
	}
	return strings.Join(text, "\n---\n"), nil
}

// readsAs checks that data reads as want.
func readsAs(t *testing.T, name string, data []byte, want string) {
	t.Helper()
	got, err := pagesText(t, data)
	if err != nil {
		t.Errorf("%s: %v", name, err)
	} else if got != want {
		t.Errorf("%s: got %q, want %q", name, got, want)
	}
}

// TestEncryptedEmptyPassword: files encrypted by qpdf with an empty user password (an
// owner password restricting printing, as Acrobat, Word and LibreOffice make them;
// testdata/encrypted/make.sh) read the same text as the unencrypted file. The object reader
// alone reads 40-bit RC4 files as damaged and AES-256 ones as unsupported.
func TestEncryptedEmptyPassword(t *testing.T) {
	want, err := readText(t, "plain.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(want, "restricts printing") || !strings.Contains(want, "café ИООИ") || !strings.Contains(want, `\ in strings`) {
		t.Fatalf("the unencrypted file reads %q", want)
	}
	for _, name := range []string{
		"rc4-40.pdf", "rc4-40-objstm.pdf", "rc4-128.pdf", "rc4-128-objstm.pdf",
		"aes-128.pdf", "aes-128-cleartext-metadata.pdf",
		"aes-256.pdf", "aes-256-objstm.pdf", "aes-256-cleartext-metadata.pdf", "aes-256-r5.pdf",
		"rc4-40-linearized.pdf", "aes-256-linearized.pdf",
	} {
		t.Run(name, func(t *testing.T) {
			got, err := readText(t, name)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got %q\nwant %q", got, want)
			}
			// the object reader reads 128-bit RC4 and AES-128 itself: the copy reads the same
			data, err := os.ReadFile(filepath.Join("testdata", "encrypted", name))
			if err != nil {
				t.Fatal(err)
			}
			s, err := openSecurity(data)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := decryptedCopy(data, s)
			if err != nil {
				t.Fatal(err)
			}
			got, err = pagesText(t, plain)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("decrypted copy: got %q\nwant %q", got, want)
			}
		})
	}
}

// TestEncryptedNeedsPassword: a file that asks for a password to be opened says so, and is
// not called damaged.
func TestEncryptedNeedsPassword(t *testing.T) {
	for _, name := range []string{"user-password-40.pdf", "user-password-256.pdf"} {
		_, err := readText(t, name)
		if !errors.Is(err, ErrEncrypted) || errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "asks for a password") {
			t.Errorf("%s: got %v, want it protected by a password", name, err)
		}
	}
}

// TestDecryptedCopyStrings: strings outside streams (the document's title here) are
// decrypted too, and the copy keeps no /Encrypt.
func TestDecryptedCopyStrings(t *testing.T) {
	for _, name := range []string{"rc4-40.pdf", "aes-128.pdf", "aes-256.pdf"} {
		data, err := os.ReadFile(filepath.Join("testdata", "encrypted", name))
		if err != nil {
			t.Fatal(err)
		}
		s, err := openSecurity(data)
		if err != nil || s == nil {
			t.Fatalf("%s: %v, %v", name, s, err)
		}
		plain, err := decryptedCopy(data, s)
		if err != nil {
			t.Fatal(err)
		}
		title := []byte("<456e637279707465642074" + "69746c65>")
		if !bytes.Contains(plain, title) {
			t.Errorf("%s: the title is not decrypted in the copy", name)
		}
		if bytes.Contains(plain, []byte("/Encrypt")) {
			t.Errorf("%s: the copy still names /Encrypt", name)
		}
	}
}

func FuzzDecryptedCopy(f *testing.F) {
	for _, name := range []string{"rc4-40.pdf", "rc4-40-objstm.pdf", "aes-128-cleartext-metadata.pdf", "aes-256-objstm.pdf", "aes-256-r5.pdf", "user-password-40.pdf"} {
		data, err := os.ReadFile(filepath.Join("testdata", "encrypted", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// streams with their own /Crypt filter, and files opened by the empty owner password
	for _, name := range []string{"crypt-identity.pdf", "crypt-named.pdf", "owner-empty-r3.pdf", "owner-empty-r6.pdf"} {
		data, err := os.ReadFile(filepath.Join("testdata", "paths", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Filter /Standard /V 4 /R 4 /O <00> /U (x) /CF << /StdCF 2 0 R >> >> endobj trailer << /Encrypt 1 0 R /ID [<01> <02>] >>"))
	f.Add([]byte("%PDF-1.4\ntrailer << /Encrypt << /Filter /Standard /V 5 /R 6 /U <0000> /UE (ab) >> >>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := openSecurity(data)
		if err != nil || s == nil {
			return
		}
		if plain, err := decryptedCopy(data, s); err == nil {
			Read(plain, Options{MaxPages: 10}) // must not panic or hang
		}
	})
}

// TestEncryptedUnsignedP: some producers write the permission bits /P unsigned
// (4294967292 for -4); the key is made from the same four bytes.
func TestEncryptedUnsignedP(t *testing.T) {
	want, err := readText(t, "plain.pdf")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "encrypted", "rc4-40.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	unsigned := bytes.Replace(data, []byte("/P -4 "), []byte("/P 4294967292 "), 1)
	if bytes.Equal(unsigned, data) {
		t.Fatal("no /P -4 in rc4-40.pdf")
	}
	got, err := pagesText(t, unsigned)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestEncryptedAttachmentsOnly: a file whose strings and streams are under the Identity
// filter, its password guarding attachments alone (/EFF, as Acrobat encrypts them; qpdf's
// encrypted-attachments.pdf), reads without the password, as pdftotext reads it; with its
// streams encrypted the same file asks for the password.
func TestEncryptedAttachmentsOnly(t *testing.T) {
	whole := pdfWith(simpleFont(""), "", "BT /F1 10 Tf 72 700 Td (the document itself) Tj ET")
	hex := func(n int, b byte) string { return "<" + strings.Repeat(fmt.Sprintf("%02x", b), n) + ">" }
	withEncrypt := func(enc string) []byte {
		return bytes.Replace(whole, []byte("trailer\n<<"), []byte("trailer\n<< /ID [<0102> <0102>] /Encrypt << /Filter /Standard "+enc+" >>"), 1)
	}
	v5 := "/V 5 /R 6 /Length 256 /P -1028 /CF << /StdCF << /AuthEvent /EFOpen /CFM /AESV3 /Length 32 >> >> /EFF /StdCF" +
		" /O " + hex(48, 0x11) + " /OE " + hex(32, 0x22) + " /U " + hex(48, 0x33) + " /UE " + hex(32, 0x44)
	v4 := "/V 4 /R 4 /Length 128 /P -1028 /CF << /StdCF << /AuthEvent /EFOpen /CFM /AESV2 /Length 16 >> >> /EFF /StdCF" +
		" /O " + hex(32, 0x11) + " /U " + hex(32, 0x33)
	for _, tt := range []struct{ name, enc string }{
		{"AES-256, /StmF and /StrF Identity", v5 + " /StmF /Identity /StrF /Identity"},
		{"AES-256, no /StmF nor /StrF", v5},
		{"AES-128, /StmF and /StrF Identity", v4 + " /StmF /Identity /StrF /Identity"},
	} {
		readsAs(t, tt.name, withEncrypt(tt.enc), "the document itself")
	}
	for _, enc := range []string{v5 + " /StmF /StdCF /StrF /Identity", v4 + " /StmF /Identity /StrF /StdCF"} {
		if _, err := pagesText(t, withEncrypt(enc)); !errors.Is(err, ErrEncrypted) || !strings.Contains(err.Error(), "asks for a password") {
			t.Errorf("%s: got %v, want it protected by a password", enc, err)
		}
	}
}
