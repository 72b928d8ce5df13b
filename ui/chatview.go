package ui

import (
	"fmt"
	"os"
	"strings"

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
	follow  bool       // keep the newest text in view
	keys    windowKeys // the window's keys, for the bubbles' focused text
	older   olderBubbles

	Composer   *composer
	SendButton *widget.Button
	Regenerate *widget.Button
	EditLast   *widget.Button
	Export     *tipButton
	// Model names the model that answers and where it runs, or its load's progress; it opens
	// the model picker (picker.go). Without a ModelSwitch the window sets its text and action.
	Model *tipButton
	// OnManageModels opens the Models view from the picker (nil hides that row).
	OnManageModels func()
	picker         *modelPicker
	fit            *headerFit     // the model text cut to the header's room (nil: the window sets it)
	SaveExport     *widget.Button // in the banner shown while saving fails
	Settings       *tipButton
	Attach         *widget.Button
	Files          *attachmentsBar
	// CompleteNotice says, while the model is a base model, that it continues text.
	CompleteNotice *widget.Label
	Content        fyne.CanvasObject
}

// composerHints are the composer's placeholders: chatting, and completing text.
const (
	chatHint     = "Message EdgeChat — Enter sends, Shift+Enter adds a line"
	completeHint = "Text to continue — Enter sends, Shift+Enter adds a line"
)

// CompleteNoticeText explains the Complete text mode of a base model.
const CompleteNoticeText = "Complete text: this is a base model with no chat template, so it continues your text instead of chatting. Each message is a new start; no system prompt or history is sent."

// NewChatView builds the view; onSettings opens the settings pane.
func NewChatView(vm *ChatVM, win fyne.Window, onSettings func()) *ChatView {
	v := &ChatView{vm: vm, win: win, bubbles: map[*MessageVM]*bubble{}, follow: true}
	v.list = newPixelColumn()
	v.scroll = container.NewVScroll(container.New(transcriptLayout{v}, v.list))
	v.scroll.OnScrolled = func(p fyne.Position) {
		// Whole pixels (pixelcolumn.go): Scroll draws with the offset set here.
		v.scroll.Offset.Y = roundPixels(p.Y, pixelScale(v.scroll))
		v.follow = p.Y >= v.list.MinSize().Height-v.scroll.Size().Height-2*theme.Padding()-8
	}

	title := v.label(vm.Title)
	title.TextStyle = fyne.TextStyle{Bold: true}
	title.Truncation = fyne.TextTruncateEllipsis
	think := widget.NewCheckWithData("Thinking", vm.Thinking)
	v.Export = newTipButton(theme.DocumentSaveIcon(), "Export as Markdown", v.export)
	v.Settings = newTipButton(theme.SettingsIcon(), "Settings", onSettings)
	v.Model = newTipButton(theme.ComputerIcon(), "Choose the model", nil)
	v.Model.Importance = widget.LowImportance
	if vm.deps.Models != nil {
		v.picker = &modelPicker{vm: vm, win: win, anchor: v.Model}
		v.Model.OnTapped = v.ShowPicker
		v.Model.SetIcon(theme.MenuDropDownIcon())
		v.Model.IconPlacement = widget.ButtonIconTrailingText
		v.fit = &headerFit{btn: v.Model}
		showModel := func() {
			v.fit.full, v.fit.tip = get[string](vm.ModelLabel), get[string](vm.ModelDetail)
			v.fit.apply()
		}
		v.on(vm.ModelLabel, showModel)
		v.on(vm.ModelDetail, showModel)
		v.on(vm.ModelMissing, func() {
			v.Model.Importance = widget.LowImportance
			if get[bool](vm.ModelMissing) {
				v.Model.Importance = widget.WarningImportance
			}
			v.Model.Refresh()
		})
	}
	header := container.New(headerLayout{v.fit}, title, v.Model, container.NewHBox(think, v.Export, v.Settings))

	banner := v.label(vm.Error)
	banner.Wrapping = fyne.TextWrapWord
	banner.Importance = widget.DangerImportance
	v.on(vm.Error, func() { showIf(banner, get[string](vm.Error) != "") })

	saveBanner := v.saveBanner()

	v.CompleteNotice = widget.NewLabelWithStyle(CompleteNoticeText, fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
	v.CompleteNotice.Wrapping = fyne.TextWrapWord
	v.CompleteNotice.Importance = widget.WarningImportance

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
	v.Attach = widget.NewButtonWithIcon("Attach", theme.MailAttachmentIcon(), v.chooseAttachment)
	v.Attach.Importance = widget.LowImportance
	v.Files = newAttachmentsBar(vm)
	actions := container.NewHBox(v.Regenerate, v.EditLast, layout.NewSpacer())
	if vm.CanAttach() {
		actions.Add(v.Attach)
		win.SetOnDropped(v.dropped)
	}
	composerRow := container.NewBorder(nil, nil, nil, container.NewVBox(layout.NewSpacer(), v.SendButton), v.Composer)
	bottom := container.NewVBox(saveBanner, banner, actions, v.Files.Content, composerRow)

	v.on(vm.Generating, v.generatingChanged)
	v.on(vm.ModelLoading, v.generatingChanged) // no sending while the model loads
	v.on(vm.Draft, v.generatingChanged)        // nor with nothing to send
	v.on(vm.Messages, v.messagesChanged)
	v.on(vm.CompleteText, func() {
		complete := get[bool](vm.CompleteText)
		showIf(v.CompleteNotice, complete)
		showIf(think, !complete)
		showIf(v.Attach, !complete) // a raw prompt carries no documents
		hint := chatHint
		if complete {
			hint = completeHint
		}
		v.Composer.SetPlaceHolder(hint)
	})
	view := container.New(viewLayout{v}, v.scroll)
	v.Content = borderInReadingOrder(container.NewVBox(header, v.CompleteNotice), container.NewPadded(bottom), nil, nil, view)
	return v
}

// saveBanner shows, while saving fails, why and what to do, with Export at hand.
func (v *ChatView) saveBanner() fyne.CanvasObject {
	text := v.label(v.vm.SaveProblem)
	text.Wrapping = fyne.TextWrapWord
	text.Importance = widget.DangerImportance
	v.SaveExport = widget.NewButtonWithIcon("Export…", theme.DocumentSaveIcon(), v.export)
	v.SaveExport.Importance = widget.HighImportance
	row := container.NewBorder(nil, nil, nil, container.NewVBox(v.SaveExport), text)
	v.on(v.vm.SaveProblem, func() { showIf(row, get[string](v.vm.SaveProblem) != "") })
	return row
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
	} else {
		v.SendButton.SetText("Send")
		v.SendButton.SetIcon(theme.MailSendIcon())
		v.SendButton.Importance = widget.HighImportance
	}
	// Send waits while the model loads and for something to send (it looked ready and did
	// nothing); Stop always works.
	enableIf(v.SendButton, get[bool](v.vm.Generating) ||
		!get[bool](v.vm.ModelLoading) && strings.TrimSpace(get[string](v.vm.Draft)) != "")
	v.SendButton.Refresh()
	v.actionsChanged()
}

// ShowPicker opens the model picker under the header's model button.
func (v *ChatView) ShowPicker() {
	if v.picker == nil {
		return
	}
	v.picker.onManage = v.OnManageModels
	v.picker.show()
}

// actionsChanged enables Regenerate and Edit last only when they have something to act on.
func (v *ChatView) actionsChanged() {
	enableIf(v.Regenerate, v.vm.CanRegenerate() && !v.vm.loading())
	enableIf(v.EditLast, v.vm.CanEditLast())
}

func enableIf(w fyne.Disableable, enabled bool) {
	switch {
	case enabled && w.Disabled():
		w.Enable()
	case !enabled && !w.Disabled():
		w.Disable()
	}
}

// grew keeps the end of the transcript in view unless the user scrolled up. It lays the
// transcript out first: Scroll.ScrollToBottom measures against the size of the last layout,
// and does nothing while that still fits the view.
func (v *ChatView) grew() {
	if !v.follow {
		return
	}
	c := v.scroll.Content
	c.Resize(c.MinSize().Max(v.scroll.Size())) // lays out (and settles) when the size changed
	v.settle()
}

// settle keeps the view on the transcript after it was laid out: on its end while following,
// and never past its end (Scroll keeps its offset when the content gets shorter, which
// leaves a blank gap under the last message).
func (v *ChatView) settle() {
	if v.scroll == nil {
		return // laid out while being built
	}
	end := max(0, v.scroll.Content.Size().Height-v.scroll.Size().Height)
	if v.follow || v.scroll.Offset.Y > end {
		v.scrollTo(end)
	}
}

// transcriptLayout pads the transcript like container.NewPadded, then settles the view. The
// height of the transcript is only known once it is laid out at its width (text wraps,
// footers appear a frame later), so following its end means settling after each layout.
//
// It also puts the list on a whole device pixel of the window, a fraction of a pixel lower
// than the padding (pixelcolumn.go); MinSize keeps a pixel for that.
type transcriptLayout struct{ v *ChatView }

func (l transcriptLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return layout.NewPaddedLayout().MinSize(objs).AddWidthHeight(0, 1/layoutScale(objs))
}

func (l transcriptLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	layout.NewPaddedLayout().Layout(objs, size)
	if len(objs) > 0 {
		o := objs[0]
		scale := layoutScale(objs)
		y := windowY(o)
		if d := ceilPixels(y, scale) - y; d > 0.001 {
			o.Move(o.Position().AddXY(0, d))
		}
	}
	l.v.settle()
}

// viewLayout gives the transcript's view all the room and settles it: when the view gets
// shorter (the Complete text notice or a banner appears) the transcript is not laid out again
// (its size is the same), and the view kept its offset, leaving the end below the fold.
type viewLayout struct{ v *ChatView }

func (l viewLayout) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

func (l viewLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.Position{})
	objs[0].Resize(size)
	l.v.settle()
}

// scrollTo scrolls the transcript to y, rounded to a whole device pixel.
func (v *ChatView) scrollTo(y float32) {
	v.scroll.ScrollToOffset(fyne.NewPos(0, roundPixels(y, pixelScale(v.scroll))))
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
