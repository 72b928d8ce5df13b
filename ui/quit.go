package ui

import (
	"bytes"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

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
// has started, on the main goroutine. Windows delivers console close, logoff and shutdown
// events to Go as SIGTERM; a GUI program's session end (WM_ENDSESSION) is not exposed by
// Fyne or GLFW, so there the autosave interval bounds what is lost.
//
// The driver registers its handler on a goroutine it starts just before its loop, which may
// run after this (seen on a loaded machine): both then got the signal, the driver's quit
// could end the loop first, and fyne.Do, which runs its function at once on the calling
// goroutine after the loop has ended, ran Quit on the signal goroutine while main was
// closing the chat too. So the driver's handler is removed again a moment later, and Quit
// runs only on the main goroutine; when the loop has already ended, main's Stopped closes
// what Quit would.
func (m *MainWindow) quitOnSignals() {
	mainID := goroutineID()
	gen := signalHandlers.Add(1)
	ch := make(chan os.Signal, 1)
	var mu sync.Mutex
	came := false // the signal came: the handler is not put back after that
	own := func() {
		mu.Lock()
		defer mu.Unlock()
		if !came && signalHandlers.Load() == gen { // not over a later window's handler
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		}
	}
	own()
	time.AfterFunc(reclaimSignals, own)
	go func() {
		<-ch
		mu.Lock()
		came = true
		signal.Stop(ch) // a second signal ends the program at once
		mu.Unlock()
		fyne.Do(func() {
			if goroutineID() == mainID {
				m.Quit()
			}
		})
	}()
}

// signalHandlers counts quitOnSignals' calls: only the last one's handler is put back.
var signalHandlers atomic.Int64

// reclaimSignals is when quitOnSignals removes the driver's handler again.
const reclaimSignals = time.Second

// goroutineID is the number the runtime gives the calling goroutine ("goroutine 1 [running]").
func goroutineID() uint64 {
	var buf [64]byte
	s := buf[:runtime.Stack(buf[:], false)]
	s = bytes.TrimPrefix(s, []byte("goroutine "))
	if i := bytes.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	id, _ := strconv.ParseUint(string(s), 10, 64)
	return id
}
