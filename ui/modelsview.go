package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"edgechat/models"
	"edgechat/models/discover"
	"edgechat/models/hub"
)

// ModelsView shows a ModelsVM: the models found on this PC, grouped by source, each with a
// one-click "Use for NPU"/"Use for CPU"; the curated downloads, a field for any ORG/NAME, and
// the downloads with live progress, pause, resume and cancel. It runs on the main goroutine;
// the view model's OnChanged reaches it through fyne.Do.
type ModelsView struct {
	binder
	vm      *ModelsVM
	win     fyne.Window
	Back    *widget.Button
	Refresh *widget.Button
	Ref     *widget.Entry
	Variant *widget.Entry
	Get     *widget.Button
	Content fyne.CanvasObject

	found          *fyne.Container
	downloads      *fyne.Container
	downloadsTitle fyne.CanvasObject
	scroll         *container.Scroll
	rows           map[*DownloadVM]fyne.CanvasObject
	// UseButtons maps a found model's path to its "Use for NPU" and "Use for CPU" buttons
	// (an embedding model's: nil and "Use for documents").
	UseButtons map[string][2]*widget.Button
	// Suggested are the curated list's Download buttons, in hub.Suggested's order.
	Suggested []*widget.Button
	// DeleteButtons maps a model EdgeChat keeps to its Delete button; InUse the models in use
	// to their "In use" mark.
	DeleteButtons map[string]*widget.Button
	InUse         map[string]*widget.Label
	// Confirm is the last delete confirmation shown; asking and deleting close or deliver
	// when the last Delete's check and deletion ended (for tests to wait on).
	Confirm  *dialog.ConfirmDialog
	asking   <-chan struct{}
	deleting <-chan error
}

// NewModelsView builds the view in win (its dialogs open there); onBack leaves it.
func NewModelsView(vm *ModelsVM, win fyne.Window, onBack func()) *ModelsView {
	v := &ModelsView{vm: vm, win: win, found: container.NewVBox(), downloads: container.NewVBox(), rows: map[*DownloadVM]fyne.CanvasObject{}}
	v.Back = widget.NewButtonWithIcon("Back", theme.NavigateBackIcon(), onBack)
	v.Refresh = widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), func() { vm.Refresh(nil) })
	title := widget.NewLabel("Models")
	title.TextStyle = fyne.TextStyle{Bold: true}
	header := container.NewBorder(nil, nil, v.Back, v.Refresh, title)

	status := widget.NewLabelWithData(vm.Status)
	status.Wrapping = fyne.TextWrapWord
	errLabel := widget.NewLabelWithData(vm.Error)
	errLabel.Wrapping = fyne.TextWrapWord
	errLabel.Importance = widget.DangerImportance
	v.on(vm.Error, func() { showIf(errLabel, get[string](vm.Error) != "") })

	v.Ref = widget.NewEntry()
	v.Ref.SetPlaceHolder("ORG/NAME, e.g. onnx-community/Qwen3-0.6B-ONNX")
	v.Variant = widget.NewEntry()
	v.Variant.SetPlaceHolder("variant (optional): q4, q4f16, fp16…")
	v.Get = widget.NewButtonWithIcon("Download", theme.DownloadIcon(), func() { _, _ = vm.Download(v.Ref.Text, v.Variant.Text) })
	custom := container.NewBorder(nil, nil, nil, v.Get, container.NewGridWithColumns(2, v.Ref, v.Variant))

	suggested := container.NewVBox()
	for _, s := range hub.Suggested {
		b := widget.NewButtonWithIcon("Download", theme.DownloadIcon(), func() { _, _ = vm.Download(s.Ref, s.Variant) })
		v.Suggested = append(v.Suggested, b)
		name := widget.NewLabel(s.Note)
		ref := caption(s.Ref + " · " + s.Variant)
		suggested.Add(container.NewBorder(nil, nil, nil, container.NewCenter(b), container.NewVBox(name, ref)))
	}

	v.downloadsTitle = section("Downloads")
	v.downloadsTitle.Hide()
	body := container.NewVBox(
		status, errLabel,
		v.downloadsTitle, v.downloads,
		section("Found on this PC"), v.found,
		section("Download"),
		caption("Downloads come from the Hugging Face Hub into your models folder (Settings → Models folder); they continue while you chat."),
		suggested, custom,
	)
	v.scroll = container.NewVScroll(container.New(column{max: 860}, container.NewPadded(body)))
	box := container.NewBorder(container.NewPadded(header), nil, nil, nil, v.scroll)
	box.Add(newTipLayer()) // last: the icon buttons' tips are drawn over the rest
	v.Content = box
	vm.OnChanged = func() { fyne.Do(v.rebuild) }
	v.rebuild()
	v.on(vm.NPUFound, v.rebuild)
	return v
}

func caption(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.SizeName = theme.SizeNameCaptionText
	l.Wrapping = fyne.TextWrapWord
	return l
}

// rebuild shows the current lists (progress updates come through bindings, not here).
func (v *ModelsView) rebuild() {
	v.found.RemoveAll()
	v.UseButtons = map[string][2]*widget.Button{}
	v.DeleteButtons, v.InUse = map[string]*widget.Button{}, map[string]*widget.Label{}
	var last discover.Source
	for _, m := range v.vm.Found() {
		if m.Source != last {
			l := widget.NewLabel(m.Source.Describe())
			l.TextStyle = fyne.TextStyle{Italic: true}
			v.found.Add(l)
			last = m.Source
		}
		v.found.Add(v.foundRow(m))
	}
	if len(v.vm.Found()) == 0 {
		v.found.Add(caption("Nothing yet. Models downloaded by Hugging Face tools, Foundry Local, AI Toolkit or AI Dev Gallery show up here; add your own folders in Settings → Other model folders."))
	}
	v.found.Refresh()
	listed := map[*DownloadVM]bool{}
	for _, d := range v.vm.Downloads() {
		listed[d] = true
		if v.rows[d] == nil {
			v.rows[d] = v.downloadRow(d)
			v.downloads.Add(v.rows[d])
		}
	}
	for d, row := range v.rows { // dismissed
		if !listed[d] {
			v.downloads.Remove(row)
			delete(v.rows, d)
		}
	}
	showIf(v.downloadsTitle, len(v.rows) > 0)
	v.updateSuggestions()
	if c, ok := v.scroll.Content.(*fyne.Container); ok {
		c.Layout.Layout(c.Objects, v.scroll.Size()) // the lists' heights changed
	}
	v.scroll.Refresh()
}

func (v *ModelsView) foundRow(m discover.Model) fyne.CanvasObject {
	name := widget.NewLabel(m.Name)
	name.TextStyle = fyne.TextStyle{Bold: true}
	name.Truncation = fyne.TextTruncateEllipsis
	title := fyne.CanvasObject(name)
	if why := Loaded(v.vm.store.Settings(), m.Path); why != "" {
		mark := widget.NewLabel("In use")
		mark.Importance = widget.SuccessImportance
		mark.TextStyle = fyne.TextStyle{Italic: true}
		v.InUse[m.Path] = mark
		title = container.NewBorder(nil, nil, nil, mark, name)
	}
	// Plain words: "Layout A" (the folder's file layout) meant nothing to a user; that a base
	// model completes text instead of chatting does (the picker says so too).
	facts := deviceName(m.Device)
	if m.Kind == models.KindChat && models.IsBaseModel(m.Path) {
		facts += " · Complete text (a base model: it continues your text)"
	}
	if m.Quantization != "" {
		facts += " · " + m.Quantization
	}
	facts += " · " + hub.Bytes(m.SizeBytes)
	if m.ContextLength > 0 {
		facts += fmt.Sprintf(" · %d-token context", m.ContextLength)
	}
	info := caption(facts + "\n" + m.Path)
	var buttons []fyne.CanvasObject
	if m.Kind == models.KindEmbedding || m.Kind == models.KindReranker {
		// It ranks documents' passages and never answers: no chat route takes it.
		what, label, route := "Embedding model (ranks attached documents)", "Use for documents", "documents"
		if m.Kind == models.KindReranker {
			what, label, route = "Reranker (re-orders attached documents' best passages)", "Use for re-ranking", "reranker"
		}
		info = caption(what + " · " + facts + "\n" + m.Path)
		docs := widget.NewButton(label, func() { _ = v.vm.Use(m.Path, route) })
		v.UseButtons[m.Path] = [2]*widget.Button{nil, docs}
		buttons = append(buttons, docs)
	} else {
		npu := widget.NewButton("Use for NPU", func() { _ = v.vm.Use(m.Path, "npu") })
		showIf(npu, get[bool](v.vm.NPUFound)) // only where an NPU runtime is found
		cpu := widget.NewButton("Use for CPU", func() { _ = v.vm.Use(m.Path, "cpu") })
		if m.Device == "npu" {
			npu.Importance = widget.HighImportance
		} else {
			cpu.Importance = widget.HighImportance
		}
		v.UseButtons[m.Path] = [2]*widget.Button{npu, cpu}
		buttons = append(buttons, npu, cpu)
	}
	if v.vm.CanDelete(m) {
		del := widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), func() { v.asking = v.askDelete(m) })
		del.Importance = widget.LowImportance
		v.DeleteButtons[m.Path] = del
		buttons = append(buttons, del)
	}
	return container.NewBorder(nil, nil, nil, container.NewCenter(container.NewHBox(buttons...)), container.NewVBox(title, info))
}

// askDelete measures m off the main goroutine and asks "Delete Qwen3-0.6B-ONNX (1.20 GB)?";
// a model in use is refused with the reason, in the view's error line.
func (v *ModelsView) askDelete(m discover.Model) <-chan struct{} {
	if why := v.vm.InUse(m); why != "" { // said where the button is, not only at the top
		dialog.ShowInformation("Model in use", m.Name+" cannot be deleted: "+why+".", v.win)
	}
	return v.vm.AskDelete(m, func(question string) {
		fyne.Do(func() {
			d := dialog.NewConfirm("Delete model", question, func(ok bool) {
				if ok {
					v.deleting = v.vm.Delete(m)
				}
			}, v.win)
			d.SetConfirmText("Delete")
			d.SetConfirmImportance(widget.DangerImportance)
			d.SetDismissText("Keep")
			v.Confirm = d
			d.Show()
		})
	})
}

func deviceName(d string) string {
	if d == "npu" {
		return "NPU build"
	}
	return "CPU"
}

// updateSuggestions shows on each suggestion's button what became of its download: a button
// that said "Download" while that very model was downloading, and after it was done, invited a
// second download.
func (v *ModelsView) updateSuggestions() {
	for i, s := range hub.Suggested {
		state := ""
		for _, d := range v.vm.Downloads() {
			if d.req.Ref == s.Ref && d.req.Variant == s.Variant {
				state = d.State()
			}
		}
		b := v.Suggested[i]
		text, icon, enabled := "Download", theme.DownloadIcon(), true
		switch state {
		case StateRunning:
			text, enabled = "Downloading…", false
		case StatePaused:
			text, icon, enabled = "Paused", theme.MediaPauseIcon(), false
		case StateDone:
			text, icon, enabled = "Downloaded", theme.ConfirmIcon(), false
		}
		if b.Text != text || b.Disabled() == enabled {
			b.Text, b.Icon = text, icon
			if enabled {
				b.Enable()
			} else {
				b.Disable()
			}
			b.Refresh()
		}
	}
}

// downloadRow shows one download; its buttons follow its state.
func (v *ModelsView) downloadRow(d *DownloadVM) fyne.CanvasObject {
	title := widget.NewLabel(d.Title)
	title.TextStyle = fyne.TextStyle{Bold: true}
	bar := widget.NewProgressBarWithData(d.Fraction)
	detail := widget.NewLabelWithData(d.Detail)
	detail.Wrapping = fyne.TextWrapWord
	pause := widget.NewButtonWithIcon("Pause", theme.MediaPauseIcon(), func() { go d.Pause() })
	resume := widget.NewButtonWithIcon("Resume", theme.MediaPlayIcon(), d.Resume)
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() { go d.Cancel() })
	useCPU := widget.NewButton("Use for CPU", func() { _ = d.Use("cpu") })
	useCPU.Importance = widget.HighImportance
	useNPU := widget.NewButton("Use for NPU", func() { _ = d.Use("npu") })
	dismiss := newTipButton(theme.WindowCloseIcon(), "Dismiss", func() { v.vm.Dismiss(d) })
	dismiss.Importance = widget.LowImportance
	buttons := container.NewHBox(pause, resume, cancel, useNPU, useCPU, dismiss)
	update := func() {
		s := d.State()
		showIf(pause, s == StateRunning)
		showIf(resume, d.CanResume())
		showIf(dismiss, s == StateDone || s == StateFailed || s == StateCancelled)
		showIf(cancel, s == StateRunning || s == StatePaused || s == StateFailed)
		showIf(useCPU, s == StateDone)
		showIf(useNPU, s == StateDone && get[bool](d.vm.NPUFound))
		// An interrupted download from an earlier run does not know its size yet: no bar at 0%
		// under "12 MB downloaded".
		showIf(bar, s != StateCancelled && !(s == StatePaused && get[float64](d.Fraction) == 0))
		v.updateSuggestions()
		detail.Importance = widget.MediumImportance
		if s == StateFailed {
			detail.Importance = widget.DangerImportance
		}
		detail.Refresh()
		buttons.Refresh()
	}
	v.on(d.Status, update)
	v.on(d.Fraction, update)
	v.on(d.vm.NPUFound, update)
	return container.NewVBox(container.NewBorder(nil, nil, nil, buttons, title), bar, detail, widget.NewSeparator())
}
