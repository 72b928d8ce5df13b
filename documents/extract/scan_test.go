package extract

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/testdocs"
)

func TestPDFImages(t *testing.T) {
	pdf := testdocs.ScanPDF(testdocs.ScanPage{Lines: []string{"one"}}, testdocs.ScanPage{Lines: []string{"two"}, JPEG: true})
	_, err := Bytes(context.Background(), "scan.pdf", pdf, nil)
	if !IsScan(err) || !errors.Is(err, ErrNoText) {
		t.Fatalf("extract: %v, want a scan", err)
	}
	if IsScan(errEmpty{}) {
		t.Error("an empty document is a scan")
	}
	var got []string
	err = PDFImages(context.Background(), "scan.pdf", pdf, func(img Image) error {
		got = append(got, fmt.Sprintf("%d/%d %s %dx%d %d dpi", img.Page, img.Pages, img.Format, img.Width, img.Height, img.DPI))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1/2 png 1700x2200 200 dpi", "2/2 jpeg 1700x2200 200 dpi"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}

	ctx, cancel := context.WithCancel(context.Background())
	err = PDFImages(ctx, "scan.pdf", pdf, func(Image) error { cancel(); return ctx.Err() })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	var u *Unreadable
	if err := PDFImages(context.Background(), "bad.pdf", []byte("not a PDF"), func(Image) error { return nil }); !errors.As(err, &u) || !errors.Is(err, ErrCorrupt) {
		t.Errorf("not a PDF: %v, want an *Unreadable, damaged", err)
	}
}
