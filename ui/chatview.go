package ui

import (
	"fmt"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"edgechat/history"
)

// ChatView shows a ChatVM: header, transcript and composer.
type ChatView struct {
	binder
	vm      *ChatVM
	win     fyne.Window
	list    *fyne.Container
	scroll  *container.Scroll
	bubbles map[*MessageVM]*bubble
	follow  bool // keep the newest text in view

	Composer   *composer
	SendButton *widget.Button
	Regenerate *widget.Button
	EditLast   *widget.Button
	Export     *widget.Button
	Settings   *widget.Button
	Content    fyne.CanvasObject
}

// NewChatView builds the view; onSettings opens the settings pane.
func NewChatView(vm *ChatVM, win fyne.Window, onSettings func()) *ChatView {
	v := &ChatView{vm: vm, win: win, bubbles: map[*MessageVM]*bubble{}, follow: true}
	v.list = container.NewVBox()
	v.scroll = container.NewVScroll(container.NewPadded(v.list))
	v.scroll.OnScrolled = func(p fyne.Position) {
		v.follow = p.Y >= v.list.MinSize().Height-v.scroll.Size().Height-2*theme.Padding()-8
	}

	title := widget.NewLabelWithData(vm.Title)
	title.TextStyle = fyne.TextStyle{Bold: true}
	title.Truncation = fyne.TextTruncateEllipsis
	think := widget.NewCheckWithData("Thinking", vm.Thinking)
	v.Export = widget.NewButtonWithIcon("", theme.DocumentSaveIcon(), v.export)
	v.Settings = widget.NewButtonWithIcon("", theme.SettingsIcon(), onSettings)
	header := container.NewBorder(nil, nil, nil, container.NewHBox(think, v.Export, v.Settings), title)

	banner := widget.NewLabelWithData(vm.Error)
	banner.Wrapping = fyne.TextWrapWord
	banner.Importance = widget.DangerImportance
	v.on(vm.Error, func() { showIf(banner, get[string](vm.Error) != "") })

	v.Composer = newComposer()
	v.Composer.Bind(vm.Draft)
	v.Composer.Validator = nil
	v.Composer.onSend = v.send
	v.Composer.onEscape = vm.Stop
	v.SendButton = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), v.sendOrStop)
	v.Regenerate = widget.NewButtonWithIcon("Regenerate", theme.ViewRefreshIcon(), v.report(vm.Regenerate))
	v.EditLast = widget.NewButtonWithIcon("Edit last", theme.DocumentCreateIcon(), v.report(vm.EditLast))
	for _, b := range []*widget.Button{v.Regenerate, v.EditLast} {
		b.Importance = widget.LowImportance
	}
	actions := container.NewHBox(v.Regenerate, v.EditLast, layout.NewSpacer())
	composerRow := container.NewBorder(nil, nil, nil, container.NewVBox(layout.NewSpacer(), v.SendButton), v.Composer)
	bottom := container.NewVBox(banner, actions, composerRow)

	v.on(vm.Generating, v.generatingChanged)
	v.on(vm.Messages, v.messagesChanged)
	v.Content = container.NewBorder(header, container.NewPadded(bottom), nil, nil, v.scroll)
	return v
}

// send is Enter in the composer and the Send button.
func (v *ChatView) send() {
	_ = v.vm.Draft.Set(v.Composer.Text)
	v.follow = true
	if err := v.vm.SendDraft(); err != nil {
		_ = v.vm.Error.Set(err.Error())
	}
}

func (v *ChatView) sendOrStop() {
	if get[bool](v.vm.Generating) {
		v.vm.Stop()
		return
	}
	v.send()
}

func (v *ChatView) report(f func() error) func() {
	return func() {
		if err := f(); err != nil {
			_ = v.vm.Error.Set(err.Error())
		}
	}
}

// generatingChanged turns Send into Stop while a reply streams.
func (v *ChatView) generatingChanged() {
	if get[bool](v.vm.Generating) {
		v.SendButton.SetText("Stop")
		v.SendButton.SetIcon(theme.MediaStopIcon())
		v.SendButton.Importance = widget.DangerImportance
		v.Regenerate.Disable()
		v.EditLast.Disable()
	} else {
		v.SendButton.SetText("Send")
		v.SendButton.SetIcon(theme.MailSendIcon())
		v.SendButton.Importance = widget.HighImportance
		v.Regenerate.Enable()
		v.EditLast.Enable()
	}
	v.SendButton.Refresh()
}

// messagesChanged reconciles bubbles with the transcript, reusing the ones still there.
func (v *ChatView) messagesChanged() {
	items, _ := v.vm.Messages.Get()
	keep := make(map[*MessageVM]bool, len(items))
	objs := make([]fyne.CanvasObject, 0, len(items))
	for _, m := range items {
		b := v.bubbles[m]
		if b == nil {
			b = newBubble(m, v.grew)
			v.bubbles[m] = b
		}
		keep[m] = true
		objs = append(objs, b.content)
	}
	for m, b := range v.bubbles {
		if !keep[m] {
			b.close()
			delete(v.bubbles, m)
		}
	}
	v.list.Objects = objs
	v.list.Refresh()
	if len(items) == 0 {
		v.follow = true
	}
	v.grew()
}

// grew keeps the end of the transcript in view unless the user scrolled up.
func (v *ChatView) grew() {
	if v.follow {
		v.scroll.ScrollToBottom()
	}
}

// FocusComposer puts the keyboard in the composer (Ctrl+L).
func (v *ChatView) FocusComposer() { v.win.Canvas().Focus(v.Composer) }

// export saves the open conversation as Markdown through a save dialog.
func (v *ChatView) export() {
	c := v.vm.Snapshot()
	if c == nil {
		_ = v.vm.Error.Set("Nothing to export yet — send a message first.")
		return
	}
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		defer w.Close()
		if _, err := w.Write([]byte(history.ExportMarkdown(c))); err != nil {
			dialog.ShowError(fmt.Errorf("could not write %s: %w — choose another folder", w.URI().Path(), err), v.win)
		}
	}, v.win)
	d.SetFileName(safeFileName(c.Title) + ".md")
	if home, err := os.UserHomeDir(); err == nil {
		if l, err := storage.ListerForURI(storage.NewFileURI(home)); err == nil {
			d.SetLocation(l)
		}
	}
	d.Resize(fyne.NewSize(760, 520))
	d.Show()
}

// safeFileName turns a title into a file name that works on Windows too.
func safeFileName(title string) string {
	out := []rune{}
	for _, r := range title {
		switch r {
		case '<', '>', ':', '"', '/', '\\', '|', '?', '*':
			r = '_'
		}
		if r >= ' ' {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return "conversation"
	}
	return string(out)
}
