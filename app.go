package main

import (
	"fmt"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// runApp opens the chat window. Placeholder wiring until ui/ lands.
func runApp(args []string) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(os.Stderr, "usage: edgechat [COMMAND]")
		return 0
	}
	a := app.NewWithID("io.edgechat.app")
	w := a.NewWindow("EdgeChat")
	w.SetContent(container.NewCenter(widget.NewLabel("EdgeChat")))
	w.Resize(fyne.NewSize(1000, 700))
	w.ShowAndRun()
	return 0
}
