package ui

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"edgechat/documents"
	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
	"edgechat/reply"
)

// fakeScans is a text recognizer whose behaviour is its read field.
func fakeScans(vm *ChatVM, scans func() documents.Scans) {
	vm.deps.Files.(*documents.Store).Library.SetScans(scans)
}

// waitStatus waits until a's status holds want.
func waitStatus(t *testing.T, a *AttachmentVM, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(get[string](a.Status), want) {
		if time.Now().After(deadline) {
			t.Fatalf("status %q, want it to say %q", get[string](a.Status), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A scan with text recognition off says how to have it read; with it on, its pages are
// recognized in the background with progress, and closing the conversation stops that.
func TestChatVMAttachScan(t *testing.T) {
	vm, _, _ := newTestChat(t, script(reply.Summary{FinishReason: "stop"}))
	src, indexed := withFiles(t, vm)
	scan := writeDoc(t, src, "scan.pdf", testdocs.ScannedPDF(2))

	const advice = "turn on Settings → Documents → Read scanned PDFs with text recognition (tesseract 5.3.0 is installed) to read it"
	fakeScans(vm, func() documents.Scans { return documents.Scans{Advice: advice} })
	if err := vm.Attach(scan); err != nil {
		t.Fatal(err)
	}
	a := waitIndexed(t, indexed)
	if s := get[string](a.Status); !get[bool](a.Failed) || !strings.Contains(s, "looks like a scan") || !strings.Contains(s, advice) {
		t.Errorf("off: failed=%v status %q, want the scan and the advice", get[bool](a.Failed), s)
	}

	release := make(chan struct{})
	fakeScans(vm, func() documents.Scans {
		return documents.Scans{Read: func(ctx context.Context, name string, data []byte, pages []int, progress func(done, total int)) ([]extract.Section, error) {
			progress(0, 2)
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			progress(1, 2)
			progress(2, 2)
			return []extract.Section{{Page: 1, Text: "Recognized words of page one."}, {Page: 2, Text: "And of page two."}}, nil
		}}
	})
	vm.RetryFailed() // the settings were saved
	items, _ := vm.Attachments.Get()
	waitStatus(t, items[0], "Recognizing text in scan.pdf: page 1 of 2")
	close(release)
	a = waitIndexed(t, indexed)
	if s := get[string](a.Status); get[bool](a.Failed) || s != "" {
		t.Errorf("on: failed=%v status %q, want it read", get[bool](a.Failed), s)
	}

	// Removing the file cancels a recognition under way; so does closing the conversation.
	stopped := make(chan error, 1)
	fakeScans(vm, func() documents.Scans {
		return documents.Scans{Read: func(ctx context.Context, name string, data []byte, pages []int, progress func(done, total int)) ([]extract.Section, error) {
			progress(0, 2)
			<-ctx.Done()
			stopped <- ctx.Err()
			return nil, ctx.Err()
		}}
	})
	for _, stop := range []func(a *AttachmentVM){
		func(a *AttachmentVM) {
			if err := vm.Detach(a); err != nil {
				t.Fatal(err)
			}
		},
		func(*AttachmentVM) { vm.NewChat() },
	} {
		if err := vm.Attach(writeDoc(t, src, "scan2.pdf", testdocs.ScannedPDF(2))); err != nil {
			t.Fatal(err)
		}
		items, _ = vm.Attachments.Get()
		last := items[len(items)-1]
		waitStatus(t, last, "Recognizing text in scan2.pdf")
		stop(last)
		select {
		case err := <-stopped:
			if err == nil {
				t.Error("recognition stopped without the context's error")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the recognition did not stop")
		}
	}
}

// A PDF with a scanned page, text recognition off, is read (not failed) and its chip says
// which page is a scan and how to have it read; with text recognition turned on, that page
// is recognized, its progress naming it, and the note goes.
func TestChatVMAttachMixedPDF(t *testing.T) {
	vm, _, _ := newTestChat(t, script(reply.Summary{FinishReason: "stop"}))
	src, indexed := withFiles(t, vm)
	pdf := writeDoc(t, src, "report.pdf", testdocs.ScanPDF(
		testdocs.ScanPage{Text: []string{"The water board met in March."}},
		testdocs.ScanPage{Lines: []string{"Dear board, the pumps are fixed."}},
	))
	const advice = "turn on Settings → Documents → Read scanned PDFs with text recognition to read its scanned pages"
	fakeScans(vm, func() documents.Scans { return documents.Scans{Advice: advice} })
	if err := vm.Attach(pdf); err != nil {
		t.Fatal(err)
	}
	a := waitIndexed(t, indexed)
	if s := get[string](a.Status); get[bool](a.Failed) || s != "report.pdf: page 2 is a scanned image, not read — "+advice {
		t.Errorf("off: failed=%v status %q, want the scanned page and the advice", get[bool](a.Failed), s)
	}

	release := make(chan struct{})
	fakeScans(vm, func() documents.Scans {
		return documents.Scans{Read: func(ctx context.Context, name string, data []byte, pages []int, progress func(done, total int)) ([]extract.Section, error) {
			progress(0, len(pages))
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			progress(len(pages), len(pages))
			return []extract.Section{{Page: 2, Text: "Dear board, the pumps are fixed."}}, nil
		}}
	})
	vm.RetryFailed() // the settings were saved
	waitStatus(t, a, "Recognizing text in report.pdf: page 1 of 1 (page 2 of the PDF)")
	close(release)
	a = waitIndexed(t, indexed)
	if s := get[string](a.Status); get[bool](a.Failed) || s != "" {
		t.Errorf("on: failed=%v status %q, want it read", get[bool](a.Failed), s)
	}
}

// A text recognition that fails leaves the chip failed with the reason and a button that
// reads the file again; once it reads, the button goes. A file that was read has none.
func TestChatViewRetryFailedAttachment(t *testing.T) {
	vm, _, _ := newTestChat(t, script(reply.Summary{FinishReason: "stop"}))
	src, indexed := withFiles(t, vm)
	w := test.NewTempWindow(t, nil)
	v := NewChatView(vm, w, func() {})
	w.SetContent(v.Content)
	w.Resize(fyne.NewSize(700, 600))

	var fail atomic.Bool
	fail.Store(true)
	fakeScans(vm, func() documents.Scans {
		return documents.Scans{Read: func(ctx context.Context, name string, data []byte, pages []int, progress func(done, total int)) ([]extract.Section, error) {
			if fail.Load() {
				return nil, errors.New("tesseract was stopped (out of memory)")
			}
			return []extract.Section{{Page: 1, Text: "Recognized words of page one."}}, nil
		}}
	})
	if err := vm.Attach(writeDoc(t, src, "scan.pdf", testdocs.ScannedPDF(1))); err != nil {
		t.Fatal(err)
	}
	a := waitIndexed(t, indexed)
	chip := v.Files.chips[0]
	if s := get[string](a.Status); !get[bool](a.Failed) || !strings.Contains(s, "out of memory") {
		t.Fatalf("failed=%v status %q, want the recognizer's error", get[bool](a.Failed), s)
	}
	if !chip.Retry.Visible() || chip.Retry.Tip != "Read scan.pdf again" {
		t.Fatalf("retry button visible=%v tip %q on a failed file", chip.Retry.Visible(), chip.Retry.Tip)
	}

	fail.Store(false) // the user closed the program that held the memory
	test.Tap(chip.Retry)
	a = waitIndexed(t, indexed)
	if s := get[string](a.Status); get[bool](a.Failed) || s != "" {
		t.Errorf("after retry: failed=%v status %q, want it read", get[bool](a.Failed), s)
	}
	if chip.Retry.Visible() {
		t.Error("the retry button stays on a file that was read")
	}

	if err := vm.Attach(writeDoc(t, src, "notes.txt", []byte("Plain notes."))); err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, indexed)
	if c := v.Files.chips[1]; c.Retry.Visible() {
		t.Error("a file that was read shows a retry button")
	}
}
