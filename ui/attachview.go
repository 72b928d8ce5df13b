package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// attachmentsBar lists the open conversation's files above the composer: a chip per file
// with its state and a remove button. It rebuilds its chips when the list changes.
type attachmentsBar struct {
	binder
	vm      *ChatVM
	box     *fyne.Container
	Content fyne.CanvasObject
	chips   []*attachmentChip
}

func newAttachmentsBar(vm *ChatVM) *attachmentsBar {
	b := &attachmentsBar{vm: vm, box: container.NewVBox()}
	b.Content = b.box
	b.on(vm.Attachments, b.rebuild)
	return b
}

func (b *attachmentsBar) rebuild() {
	for _, c := range b.chips {
		c.unbind()
	}
	b.chips = nil
	items, _ := b.vm.Attachments.Get()
	objs := make([]fyne.CanvasObject, 0, len(items))
	for _, a := range items {
		c := newAttachmentChip(a, func() {
			if err := b.vm.Detach(a); err != nil {
				_ = b.vm.Error.Set(err.Error())
			}
		}, func() { b.vm.Retry(a) })
		b.chips = append(b.chips, c)
		objs = append(objs, c.content)
	}
	b.box.Objects = objs
	b.box.Refresh()
}

// attachmentChip is one attached file: icon, name and size, its state, a button that reads
// it again when reading it failed, a remove button.
type attachmentChip struct {
	binder
	content fyne.CanvasObject
	Retry   *tipButton
	Remove  *tipButton
}

func newAttachmentChip(a *AttachmentVM, onRemove, onRetry func()) *attachmentChip {
	c := &attachmentChip{}
	name := widget.NewLabel(fmt.Sprintf("%s · %s", a.Name, humanSize(a.Size)))
	status := c.label(a.Status)
	status.SizeName = theme.SizeNameCaptionText
	status.Truncation = fyne.TextTruncateEllipsis
	icon := widget.NewIcon(theme.FileTextIcon())
	c.Retry = newTipButton(theme.ViewRefreshIcon(), "Read "+a.Name+" again", onRetry)
	c.Retry.Importance = widget.LowImportance
	c.on(a.Failed, func() {
		showIf(c.Retry, get[bool](a.Failed))
		if get[bool](a.Failed) {
			status.Importance = widget.DangerImportance
			icon.SetResource(theme.ErrorIcon())
		} else { // read again (RetryFailed)
			status.Importance = widget.MediumImportance
			icon.SetResource(theme.FileTextIcon())
		}
		status.Refresh()
	})
	c.on(a.Status, func() { showIf(status, get[string](a.Status) != "") })
	c.Remove = newTipButton(theme.CancelIcon(), "Remove "+a.Name, onRemove)
	c.Remove.Importance = widget.LowImportance
	bg := newThemedRect(theme.ColorNameInputBackground, theme.InputRadiusSize())
	row := container.NewBorder(nil, nil, container.NewHBox(icon, name), container.NewHBox(c.Retry, c.Remove), status)
	c.content = container.NewStack(bg, row)
	return c
}

// humanSize is "532 B", "48 KB", "3.1 MB".
func humanSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.0f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// chooseAttachment opens a file dialog and attaches the chosen file.
func (v *ChatView) chooseAttachment() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		v.attach(path)
	}, v.win)
	if exts := v.vm.AttachExtensions(); len(exts) > 0 {
		d.SetFilter(storage.NewExtensionFileFilter(exts))
	}
	d.Resize(fyne.NewSize(760, 520))
	d.Show()
}

// dropped attaches the files dropped on the window.
func (v *ChatView) dropped(_ fyne.Position, uris []fyne.URI) {
	var paths []string
	for _, u := range uris {
		if u.Scheme() == "file" {
			paths = append(paths, u.Path())
		}
	}
	v.attach(paths...)
}

func (v *ChatView) attach(paths ...string) {
	if err := v.vm.Attach(paths...); err != nil {
		_ = v.vm.Error.Set(err.Error())
	}
}
