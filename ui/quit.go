package ui

import (
	"os"
	"os/signal"
	"syscall"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"edgechat/history"
)

// Quit pauses model downloads, ends the reply being written (it is saved with its
// statistics), writes the open conversation and closes the window. Call it on the main
// goroutine.
func (m *MainWindow) Quit() {
	if m.Models != nil {
		m.Models.Close() // pauses downloads: they continue on the next Download
	}
	m.ChatView.stopOlder()
	m.Chat.Close()
	m.Window.Close()
}

// confirmQuit is closing the window: Quit, unless the open conversation is not saved; then
// it offers Export first.
func (m *MainWindow) confirmQuit() {
	problem := get[string](m.Chat.SaveProblem)
	if problem == "" {
		m.Quit()
		return
	}
	text := widget.NewLabel(problem + "\n\nQuit anyway writes a copy to " + history.RescueDir() + ".")
	text.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("This conversation is not saved", "Quit anyway", "Export first", container.NewPadded(text), func(quit bool) {
		if quit {
			m.Quit()
			return
		}
		m.ChatView.export()
	}, m.Window)
	d.Resize(fyne.NewSize(560, 260))
	d.Show()
}

// quitOnSignals makes SIGINT and SIGTERM quit as closing the window does. Fyne's driver
// catches them itself and stops its loop without closing the window: a reply being written
// then lost its statistics, and its stream touched widgets after the loop had stopped
// ("Error in Fyne call thread"). Its handler is replaced by this one; it runs once the app
// has started (after the driver registered its own). Windows delivers console close, logoff
// and shutdown events to Go as SIGTERM; a GUI program's session end (WM_ENDSESSION) is not
// exposed by Fyne or GLFW, so there the autosave interval bounds what is lost.
func (m *MainWindow) quitOnSignals() {
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		signal.Stop(ch) // a second signal ends the program at once
		fyne.Do(m.Quit)
	}()
}
