package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// modelPicker is the chat header's model menu: a pop-up under the header's model button
// listing the models found on this PC and downloaded (size, NPU/CPU, Complete text for a
// base model), the one that answers checked, and Manage models… to the Models view. Choosing
// one switches the open conversation to it. Main goroutine.
type modelPicker struct {
	vm     *ChatVM
	win    fyne.Window
	anchor fyne.CanvasObject
	// onManage opens the Models view (nil hides Manage models…).
	onManage func()
	popup    *widget.PopUp
	// rows are the models' buttons as last shown, in order; manage is Manage models….
	rows   []*pickerRow
	manage *pickerRow
}

// pickerRow is a button of the picker that closes it on Esc (Tab and Space work as on any
// button: the keyboard reaches every row).
type pickerRow struct {
	widget.Button
	onEscape func()
}

func newPickerRow(label string, icon fyne.Resource, tapped, escape func()) *pickerRow {
	r := &pickerRow{onEscape: escape}
	r.Text, r.Icon, r.OnTapped = label, icon, tapped
	r.Alignment = widget.ButtonAlignLeading
	r.Importance = widget.LowImportance
	r.ExtendBaseWidget(r)
	return r
}

// TypedKey closes the picker on Esc.
func (r *pickerRow) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape {
		r.onEscape()
		return
	}
	r.Button.TypedKey(k)
}

// pickerTitle heads the pop-up.
const pickerTitle = "Model for this chat"

// show opens the pop-up with the models as they are now.
func (p *modelPicker) show() {
	choices := p.vm.Choices()
	cur := p.vm.CurrentModel()
	list := container.NewVBox()
	p.rows = p.rows[:0]
	for _, c := range choices {
		icon := theme.RadioButtonIcon() // one of them answers: the checked one
		if c.Path == cur.Path {
			icon = theme.RadioButtonCheckedIcon()
		}
		b := newPickerRow(c.Label(), icon, func() { p.choose(c) }, p.hide)
		if c.Unusable != "" {
			b.Disable()
		}
		list.Add(b)
		p.rows = append(p.rows, b)
	}
	if len(choices) == 0 {
		l := widget.NewLabel("No models found on this PC yet — Manage models… finds and downloads them.")
		l.Wrapping = fyne.TextWrapWord
		list.Add(l)
	}
	title := widget.NewLabelWithStyle(pickerTitle, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.manage = newPickerRow("Manage models…", theme.StorageIcon(), func() {
		p.hide()
		p.onManage()
	}, p.hide)
	bottom := container.NewVBox(widget.NewSeparator(), p.manage)
	if p.onManage == nil {
		p.manage.Hide()
		bottom.Hide()
	}
	content := container.NewBorder(title, bottom, nil, nil, container.NewVScroll(list))
	p.popup = widget.NewPopUp(content, p.win.Canvas())

	canvas := p.win.Canvas().Size()
	pad := 4 * theme.Padding()
	w := min(max(480, list.MinSize().Width+pad), canvas.Width-pad)
	h := min(title.MinSize().Height+list.MinSize().Height+bottom.MinSize().Height+pad, canvas.Height*0.7)
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(p.anchor)
	x := max(0, min(pos.X+p.anchor.Size().Width-w, canvas.Width-w))
	p.popup.Resize(fyne.NewSize(w, h))
	p.popup.ShowAtPosition(fyne.NewPos(x, pos.Y+p.anchor.Size().Height))
	for _, r := range p.rows { // the keyboard starts on the model that answers
		if r.Icon == theme.RadioButtonCheckedIcon() {
			p.win.Canvas().Focus(r)
		}
	}
}

func (p *modelPicker) hide() {
	if p.popup != nil {
		p.popup.Hide()
	}
}

// choose switches to c; a problem shows in the chat's banner.
func (p *modelPicker) choose(c ModelChoice) {
	p.hide()
	_ = p.vm.ChooseModel(c)
}
