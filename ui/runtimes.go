package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// RuntimeFinder is what a ModelTester may also do: list the ONNX Runtime builds for the NPU
// installed on this PC (Python onnxruntime-qnn, NuGet, AI Toolkit, Foundry Local), each with
// what it offers or why it cannot be used. It may take a second: it runs off the UI thread.
type RuntimeFinder interface {
	FindRuntimes() []Runtime
}

// Runtime is one ONNX Runtime build found on this PC, as the pane lists it.
type Runtime struct {
	Path, Origin, Version string
	// Providers is what the library itself offers.
	Providers []string
	// Problem says why EdgeChat cannot use it for the NPU; empty when it can.
	Problem string
}

// Usable says whether EdgeChat can load the library and run the QNN provider from it.
func (r Runtime) Usable() bool { return r.Problem == "" }

// runtimeList shows the builds a RuntimeFinder finds under the ONNX Runtime library field,
// each with a Use button that puts its path in that field. ONNX Runtime loads once per run,
// so a new library takes effect after Save and a restart; the list says so. The search
// starts the first time the pane is shown (Shown): it loads each library to ask it.
func (v *SettingsView) runtimeList() fyne.CanvasObject {
	f, ok := v.vm.tester.(RuntimeFinder)
	if !ok {
		return container.NewVBox()
	}
	status := widget.NewLabel("Looking for ONNX Runtime builds for the NPU on this PC…")
	status.Wrapping = fyne.TextWrapWord
	status.SizeName = theme.SizeNameCaptionText
	box := container.NewVBox(status)
	v.runtimesListed = make(chan struct{})
	v.findRuntimes = func() {
		go func() {
			found := f.FindRuntimes()
			fyne.Do(func() {
				v.fillRuntimes(box, status, found)
				close(v.runtimesListed)
			})
		}()
	}
	return box
}

// Shown is called when the pane is shown; the first call starts the search for runtimes.
func (v *SettingsView) Shown() {
	if v.findRuntimes != nil {
		v.findOnce.Do(v.findRuntimes)
	}
}

func (v *SettingsView) fillRuntimes(box *fyne.Container, status *widget.Label, found []Runtime) {
	if len(found) == 0 {
		status.SetText(noNPUText + ".")
		return
	}
	status.SetText("ONNX Runtime builds for the NPU on this PC. Use puts one in the field above; Save, then restart EdgeChat: ONNX Runtime loads once per run.")
	for _, c := range found {
		version := c.Version
		if version == "" {
			version = "version unknown"
		}
		head := widget.NewLabel(version + " — " + c.Origin)
		head.TextStyle = fyne.TextStyle{Bold: true}
		head.Wrapping = fyne.TextWrapWord
		path := widget.NewLabel(c.Path)
		path.TextStyle = fyne.TextStyle{Monospace: true}
		path.Wrapping = fyne.TextWrapBreak
		state := widget.NewLabel("Offers " + strings.Join(c.Providers, ", "))
		if !c.Usable() {
			state.SetText("Not usable: " + c.Problem)
			state.Importance = widget.WarningImportance
		}
		state.Wrapping = fyne.TextWrapWord
		state.SizeName = theme.SizeNameCaptionText
		use := widget.NewButton("Use", func() { _ = v.vm.Fields["ort_library"].Set(c.Path) })
		if !c.Usable() {
			use.Disable()
		}
		box.Add(container.NewBorder(nil, nil, nil, use, container.NewVBox(head, path, state)))
	}
}
