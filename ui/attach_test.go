package ui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"edgechat/config"
	"edgechat/documents"
	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
	"edgechat/reply"
)

// withFiles gives vm a real attachments store in a temporary data folder and returns the
// folder holding the originals to attach.
func withFiles(t *testing.T, vm *ChatVM) (src string, indexed chan *AttachmentVM) {
	t.Helper()
	vm.deps.Files = &documents.Store{Dir: t.TempDir(), Library: documents.NewLibrary()}
	indexed = make(chan *AttachmentVM, 8)
	vm.onIndexed = func(a *AttachmentVM) { indexed <- a }
	return t.TempDir(), indexed
}

func writeDoc(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func waitIndexed(t *testing.T, ch chan *AttachmentVM) *AttachmentVM {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("attachment not read within 10 s")
		return nil
	}
}

func TestChatVMAttachAskDetach(t *testing.T) {
	sources := []reply.Source{{File: "report.pdf", Page: 2, Text: "The code is 7341."}}
	vm, eng, st := newTestChat(t, script(reply.Summary{FinishReason: "stop", Backend: "cpu", Sources: sources}, text("7341 [1]")))
	src, indexed := withFiles(t, vm)
	pdf := writeDoc(t, src, "report.pdf", testdocs.PDF([]string{"Intro.", "The code is 7341."}))
	scan := writeDoc(t, src, "scan.pdf", testdocs.ScannedPDF(1))
	png := writeDoc(t, src, "photo.png", []byte("\x89PNG\r\n\x1a\n\x00"))

	err := vm.Attach(pdf, scan, png)
	if err == nil || !strings.Contains(err.Error(), "Cannot read photo.png") || !strings.Contains(get[string](vm.Error), "photo.png") {
		t.Errorf("attach error %v, want one about photo.png", err)
	}
	if got := get[string](vm.Title); got != "report.pdf" {
		t.Errorf("title %q, want the first file's name", got)
	}
	states := map[string]*AttachmentVM{}
	for range 2 {
		a := waitIndexed(t, indexed)
		states[a.Name] = a
	}
	if get[string](states["report.pdf"].Status) != "" || get[bool](states["report.pdf"].Failed) {
		t.Errorf("report.pdf: status %q", get[string](states["report.pdf"].Status))
	}
	if s := get[string](states["scan.pdf"].Status); !get[bool](states["scan.pdf"].Failed) || !strings.Contains(s, "looks like a scan") {
		t.Errorf("scan.pdf: failed=%v status %q", get[bool](states["scan.pdf"].Failed), s)
	}
	if err := os.Remove(pdf); err != nil { // the conversation keeps its copy
		t.Fatal(err)
	}

	if err := vm.Send("What is the code?"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, vm)
	req := eng.last()
	if len(req.Attachments) != 2 || req.Attachments[0].Name != "report.pdf" {
		t.Fatalf("request attachments %+v", req.Attachments)
	}
	if _, err := os.Stat(req.Attachments[0].Path); err != nil {
		t.Errorf("the copy is not where the request says: %v", err)
	}
	reply := messages(vm)[1]
	got, _ := reply.Sources.Get()
	if diff := cmp.Diff(sources, got); diff != "" {
		t.Errorf("reply sources (-want +got):\n%s", diff)
	}
	saved, err := st.Load(get[string](vm.CurrentID))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sources, saved.Messages[1].Sources); diff != "" {
		t.Errorf("saved sources (-want +got):\n%s", diff)
	}
	if len(saved.Attachments) != 2 {
		t.Errorf("saved attachments %+v", saved.Attachments)
	}

	// Reopening lists the attachments again; detaching deletes the copy.
	vm.NewChat()
	if n := vm.Attachments.Length(); n != 0 {
		t.Errorf("a new chat shows %d attachments", n)
	}
	if err := vm.Open(saved.ID); err != nil {
		t.Fatal(err)
	}
	items, _ := vm.Attachments.Get()
	if len(items) != 2 {
		t.Fatalf("reopened conversation lists %d attachments", len(items))
	}
	waitIndexed(t, indexed)
	waitIndexed(t, indexed)
	if err := vm.Detach(items[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(req.Attachments[0].Path); !os.IsNotExist(err) {
		t.Errorf("copy still there after detaching: %v", err)
	}
	if c := vm.Snapshot(); len(c.Attachments) != 1 || c.Attachments[0].Name != "scan.pdf" {
		t.Errorf("attachments after detaching: %+v", c.Attachments)
	}
}

func TestChatViewAttachmentsAndSources(t *testing.T) {
	sources := []reply.Source{{File: "report.pdf", Page: 250, Text: "The access code is 7341-QUARTZ."}}
	const ranking = "Passages ranked by keywords, re-ranked by ms-marco-MiniLM-L-6-v2"
	vm, _, st := newTestChat(t, script(reply.Summary{FinishReason: "stop", Backend: "cpu", Sources: sources, Ranking: ranking}, text("7341-QUARTZ [1]")))
	src, indexed := withFiles(t, vm)
	w := test.NewTempWindow(t, nil)
	v := NewChatView(vm, w, func() {})
	w.SetContent(v.Content)
	w.Resize(fyne.NewSize(700, 600))

	// Dropping a file on the window attaches it.
	pdf := writeDoc(t, src, "report.pdf", testdocs.PDF([]string{"The access code is 7341-QUARTZ."}))
	v.dropped(fyne.NewPos(10, 10), []fyne.URI{storage.NewFileURI(pdf)})
	waitIndexed(t, indexed)
	if n := len(v.Files.chips); n != 1 {
		t.Fatalf("%d chips, want 1", n)
	}
	if !v.Attach.Visible() {
		t.Error("no Attach button")
	}

	_ = vm.Send("What is the access code?")
	waitIdle(t, vm)
	b := v.bubbles[messages(vm)[1]]
	var btn *widget.Button
	walk(b.content, func(o fyne.CanvasObject) {
		if x, ok := o.(*widget.Button); ok && strings.HasPrefix(x.Text, "[1] ") {
			btn = x
		}
	})
	if btn == nil || btn.Text != "[1] report.pdf, page 250" {
		t.Fatalf("source button %v", btn)
	}
	// The list says how its passages were ranked, and the conversation keeps it.
	shown := false
	walk(b.content, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.Text == ranking && l.Visible() {
			shown = true
		}
	})
	if !shown {
		t.Error("the sources do not say how they were ranked")
	}
	if saved, err := st.Load(get[string](vm.CurrentID)); err != nil || saved.Messages[1].Ranking != ranking {
		t.Errorf("saved ranking: %v", err)
	}
	test.Tap(btn)
	overlay := w.Canvas().Overlays().Top()
	if overlay == nil {
		t.Fatal("tapping the source opened nothing")
	}
	found := false
	walk(overlay, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.Text == sources[0].Text {
			found = true
		}
	})
	if !found {
		t.Error("the passage dialog does not show the passage's text")
	}

	// The chip's remove button detaches.
	test.Tap(v.Files.chips[0].Remove)
	if n := vm.Attachments.Length(); n != 0 {
		t.Errorf("%d attachments after remove", n)
	}
}

// A file attached to a new chat names it, and the sidebar lists it at once under that name
// (it listed the chat only after the first message, while the header already showed the name).
func TestAttachListsConversation(t *testing.T) {
	m, _ := newTestWindow(t, config.Defaults())
	src, indexed := withFiles(t, m.Chat)
	pdf := writeDoc(t, src, "report.pdf", testdocs.PDF([]string{"The code is 7341."}))
	if err := m.Chat.Attach(pdf); err != nil {
		t.Fatal(err)
	}
	if got := titles(m.Sidebar); len(got) != 1 || got[0] != "report.pdf" {
		t.Errorf("sidebar = %v, want the chat named report.pdf", got)
	}
	waitIndexed(t, indexed)
}

// The file dialog offers every ending the reader reads by name, templates and macro-enabled
// kinds included, and only those.
func TestAttachDialogOffersWhatIsRead(t *testing.T) {
	m, _ := newTestWindow(t, config.Defaults())
	if got := m.Chat.AttachExtensions(); got != nil {
		t.Errorf("without a store: %v, want none", got)
	}
	withFiles(t, m.Chat)
	exts := m.Chat.AttachExtensions()
	if !slices.IsSorted(exts) {
		t.Errorf("endings not sorted: %v", exts)
	}
	for _, want := range []string{".pdf", ".docx", ".dotx", ".xlsm", ".xltm", ".ppsm", ".potm", ".ott", ".ots", ".otp", ".epub", ".rtf", ".xhtml", ".tsv", ".yaml", ".go"} {
		if !slices.Contains(exts, want) {
			t.Errorf("the dialog does not offer %s", want)
		}
	}
	for _, ext := range exts {
		if extract.FormatOf("file"+ext, nil) == "" {
			t.Errorf("the dialog offers %s, which the reader does not read", ext)
		}
	}
}
