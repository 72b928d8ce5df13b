package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"edgechat/history"
)

// sourcesRow lists the passages a reply was given: one button per passage ("[2] report.pdf,
// page 250") that opens its text, under a line saying how they were ranked. It is hidden when
// there are none.
func (b *bubble) sourcesRow() fyne.CanvasObject {
	m := b.msg
	title := widget.NewLabel("Sources")
	title.SizeName = theme.SizeNameCaptionText
	title.TextStyle = fyne.TextStyle{Bold: true}
	ranking := widget.NewLabelWithData(m.Ranking)
	ranking.SizeName = theme.SizeNameCaptionText
	ranking.Wrapping = fyne.TextWrapWord
	b.on(m.Ranking, func() { b.show(ranking, get[string](m.Ranking) != "") })
	list := container.NewVBox()
	row := container.NewVBox(title, ranking, list)
	b.on(m.Sources, func() {
		srcs, _ := m.Sources.Get()
		objs := make([]fyne.CanvasObject, len(srcs))
		for i, s := range srcs {
			btn := widget.NewButtonWithIcon(fmt.Sprintf("[%d] %s", i+1, s.Label()), theme.FileTextIcon(), nil)
			btn.Importance = widget.LowImportance
			btn.Alignment = widget.ButtonAlignLeading
			btn.OnTapped = func() { showPassage(btn, i+1, s) }
			objs[i] = btn
		}
		list.Objects = objs
		list.Refresh()
		b.show(row, len(srcs) > 0)
	})
	return row
}

// showPassage opens a dialog with the text of passage n over the window that holds from.
func showPassage(from fyne.CanvasObject, n int, s history.Source) {
	win := windowOf(from)
	if win == nil {
		return
	}
	text := widget.NewLabel(s.Text)
	text.Wrapping = fyne.TextWrapWord
	text.Selectable = true
	d := dialog.NewCustom(fmt.Sprintf("[%d] %s", n, s.Label()), "Close", container.NewVScroll(text), win)
	d.Resize(fyne.NewSize(680, 480))
	d.Show()
}

// windowOf finds the window whose canvas shows o.
func windowOf(o fyne.CanvasObject) fyne.Window {
	app := fyne.CurrentApp()
	if app == nil {
		return nil
	}
	c := app.Driver().CanvasForObject(o)
	for _, w := range app.Driver().AllWindows() {
		if w.Canvas() == c {
			return w
		}
	}
	return nil
}
