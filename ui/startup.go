package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// StartupProblem is something that keeps EdgeChat from opening its chat window (settings it
// cannot read, a data folder it cannot use), with the ways out. It is shown in a window of its
// own instead of a line on stderr that a double-click never shows.
type StartupProblem struct {
	Title   string // "EdgeChat cannot use its data folder"
	Message string // what happened, and where
	Actions []StartupAction
}

// StartupAction is one way out of a start-up problem.
type StartupAction struct {
	Label string
	// Folder asks for a folder first and passes it to Do.
	Folder bool
	// Do runs on the main goroutine. nil means the problem is solved and start-up goes on;
	// an error is shown under the buttons (the window stays).
	Do func(folder string) error
	// Keep leaves the window open after Do succeeds (opening a file to look at).
	Keep bool
}

// StartupView is the start-up problem's window.
type StartupView struct {
	Window  fyne.Window
	Title   *widget.Label
	Message *widget.Label
	Buttons []*widget.Button // in the order of the actions, then Quit
	Error   *widget.Label
}

// ShowStartupProblem opens a window showing p. When an action solves it, solved is called
// (it opens the next window) and this window closes; Quit ends the app.
func ShowStartupProblem(a fyne.App, p StartupProblem, solved func()) *StartupView {
	v := &StartupView{Window: a.NewWindow("EdgeChat")}
	title := widget.NewLabelWithStyle(p.Title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	title.Wrapping = fyne.TextWrapWord
	msg := widget.NewLabel(p.Message)
	msg.Wrapping = fyne.TextWrapWord
	msg.Selectable = true // paths can be copied
	v.Title, v.Message = title, msg
	v.Error = widget.NewLabel("")
	v.Error.Wrapping = fyne.TextWrapWord
	v.Error.Importance = widget.DangerImportance
	v.Error.Hide()

	fail := func(err error) {
		v.Error.SetText(err.Error())
		v.Error.Show()
	}
	run := func(act StartupAction, folder string) {
		if err := act.Do(folder); err != nil {
			fail(err)
			return
		}
		if act.Keep {
			return
		}
		solved()
		v.Window.Close()
	}
	row := container.NewHBox()
	for i, act := range p.Actions {
		b := widget.NewButton(act.Label, func() {
			if !act.Folder {
				run(act, "")
				return
			}
			d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
				if err != nil {
					fail(err)
				} else if u != nil {
					run(act, u.Path())
				}
			}, v.Window)
			startIn(d, "")
			d.Resize(fyne.NewSize(700, 480))
			d.Show()
		})
		if i == 0 {
			b.Importance = widget.HighImportance
		}
		v.Buttons = append(v.Buttons, b)
		row.Add(b)
	}
	quit := widget.NewButton("Quit", a.Quit)
	v.Buttons = append(v.Buttons, quit)
	row.Add(quit)

	icon := widget.NewIcon(theme.WarningIcon())
	head := container.NewBorder(nil, nil, container.NewGridWrap(fyne.NewSize(40, 40), icon), nil, title)
	body := container.NewVBox(head, msg, row, v.Error)
	v.Window.SetContent(container.NewPadded(container.New(column{max: 680}, container.NewPadded(body))))
	v.Window.Resize(fyne.NewSize(760, 360))
	v.Window.Show()
	return v
}
