// Command bare opens a Fyne window with one label and nothing else: the floor of idle CPU
// that tools/idlecpu/idlecpu.sh compares EdgeChat's window with.
package main

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

func main() {
	w := app.New().NewWindow("Bare")
	w.SetContent(widget.NewLabel("A Fyne window doing nothing"))
	w.Resize(fyne.NewSize(1280, 800))
	w.ShowAndRun()
}
