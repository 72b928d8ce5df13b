package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/widget"
)

// NPUFinder is what a ModelTester may also do: say, quickly and without loading anything
// into the process, whether this PC has an ONNX Runtime build for the NPU. The window shows
// NPU options (the NPU's model and settings, "Use for NPU", how to build an NPU model) only
// where it has one; elsewhere one line says the CPU is used.
type NPUFinder interface {
	HasNPURuntime() bool
}

// noNPUText is the one line shown instead of the NPU options.
const noNPUText = "No NPU runtime found on this PC — EdgeChat uses the CPU"

// findNPU sets found from the tester in the background (false until then, and without a
// NPUFinder). The channel it returns is closed once found is set and its listeners were
// told (tests wait on it: the test driver runs listeners on the goroutine that sets).
func findNPU(tester ModelTester, found binding.Bool) <-chan struct{} {
	done := make(chan struct{})
	f, ok := tester.(NPUFinder)
	if !ok {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		_ = found.Set(f.HasNPURuntime())
	}()
	return done
}

// noNPULine is noNPUText with a link to the settings' Runtime section (open runs it).
func noNPULine(open func()) fyne.CanvasObject {
	l := widget.NewLabel(noNPUText)
	l.Wrapping = fyne.TextWrapWord
	link := widget.NewHyperlink("Settings → Runtime", nil)
	link.OnTapped = open
	return container.NewBorder(nil, nil, nil, link, l)
}
