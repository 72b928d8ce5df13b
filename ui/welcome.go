package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"edgechat/config"
)

// HasModel reports whether s names a model for at least one route.
func HasModel(s config.Settings) bool { return s.CPU.Model != "" || s.NPU.Model != "" }

// WelcomeVM is the first-run page: it takes a model folder, checks it and saves it as the
// CPU route's model.
type WelcomeVM struct {
	Error binding.String
	// NPUFound says this PC has an NPU runtime: only then does the page tell how to build an
	// NPU model (the window shares SettingsVM.NPUFound; set it before building the view).
	NPUFound binding.Bool
	// OnReady is called after a usable model was saved.
	OnReady func(config.Settings)
	store   SettingsStore
}

// NewWelcomeVM returns the first-run view model.
func NewWelcomeVM(store SettingsStore) *WelcomeVM {
	return &WelcomeVM{Error: binding.NewString(), NPUFound: binding.NewBool(), store: store}
}

// UseModel checks the folder (or .onnx file) and saves it as the CPU model.
func (vm *WelcomeVM) UseModel(path string) error {
	if err := config.CheckModelPath(path); err != nil {
		_ = vm.Error.Set(err.Error())
		return err
	}
	s := vm.store.Settings()
	s.CPU.Model = path
	if s.CPU.EP == "" {
		s.CPU.EP = "cpu"
	}
	if err := vm.store.Save(s); err != nil {
		err = fmt.Errorf("could not save the settings: %w — check that the settings folder is writable", err)
		_ = vm.Error.Set(err.Error())
		return err
	}
	_ = vm.Error.Set("")
	if vm.OnReady != nil {
		vm.OnReady(s)
	}
	return nil
}

// The page's text is Markdown with each paragraph on one line (a single line break is a line
// break in this package's Markdown, as in a chat reply).
const welcomeText = "## Welcome to EdgeChat\n\n" +
	"EdgeChat runs **Qwen3-0.6B** on this PC — on the NPU when there is one, otherwise on the CPU. " +
	"Nothing you type leaves the machine. First it needs a model:\n\n" +
	"**Find or download one:** EdgeChat looks for models that other tools (Hugging Face, Foundry " +
	"Local, AI Toolkit, AI Dev Gallery) already put on this PC, and can download Qwen3-0.6B for you.\n\n" +
	"**Or choose a folder:** a Qwen3-0.6B ONNX export, for example *onnx-community/Qwen3-0.6B-ONNX* " +
	"from Hugging Face, with *config.json*, *tokenizer.json* and *onnx/model.onnx*."

const welcomeNPUText = "**For the NPU** (Snapdragon X and other Copilot+ PCs): build an NPU model with the " +
	"Windows ML toolkit into a folder, then choose that folder:"

// WelcomeView shows what to download and offers the folder picker.
type WelcomeView struct {
	Models   *widget.Button // opens the Models view (the window sets its action)
	Choose   *widget.Button
	Settings *widget.Button
	Content  fyne.CanvasObject
	// NPU tells how to build an NPU model, where an NPU runtime is found; NoNPU says the CPU
	// is used.
	NPU   *fyne.Container
	NoNPU *widget.Label
}

// NewWelcomeView builds the page; onSettings opens the settings pane.
func NewWelcomeView(vm *WelcomeVM, win fyne.Window, onSettings func()) *WelcomeView {
	v := &WelcomeView{}
	// As a reply is drawn (wraptext.go): every run on a whole pixel, where Fyne's own
	// Markdown drew the text after a bold run lighter.
	intro := newWrapText(markdownSegments(welcomeText))
	scroll := container.NewVScroll(nil)
	cmd := newCodeBlock(Block{Kind: BlockCode, Lang: "shell", Text: "winml build -m Qwen/Qwen3-0.6B --ep qnn --device npu -o qwen3-0.6b-npu"}, scroll)
	errLabel := widget.NewLabelWithData(vm.Error)
	errLabel.Wrapping = fyne.TextWrapWord
	errLabel.Importance = widget.DangerImportance
	vm.Error.AddListener(binding.NewDataListener(func() { showIf(errLabel, get[string](vm.Error) != "") }))

	v.Choose = widget.NewButtonWithIcon("Choose model folder…", theme.FolderOpenIcon(), func() {
		d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
			if err == nil && u != nil {
				_ = vm.UseModel(u.Path())
			}
		}, win)
		startIn(d, "")
		d.Resize(fyne.NewSize(760, 520))
		d.Show()
	})
	v.Models = widget.NewButtonWithIcon("Find or download a model…", theme.DownloadIcon(), nil)
	v.Models.Importance = widget.HighImportance
	v.Settings = widget.NewButtonWithIcon("Open Settings", theme.SettingsIcon(), onSettings)
	buttons := container.NewHBox(v.Models, v.Choose, v.Settings)
	npuText := newWrapText(markdownSegments(welcomeNPUText))
	v.NPU = container.NewVBox(npuText, cmd)
	v.NoNPU = widget.NewLabel(noNPUText + ".")
	v.NoNPU.Wrapping = fyne.TextWrapWord
	show := func() {
		found := get[bool](vm.NPUFound)
		showIf(v.NPU, found)
		showIf(v.NoNPU, !found)
	}
	show()
	vm.NPUFound.AddListener(binding.NewDataListener(show))
	body := container.NewVBox(intro, buttons, errLabel, v.NPU, v.NoNPU)
	scroll.Content = container.New(column{max: 680}, container.NewPadded(body))
	v.Content = scroll
	return v
}

// column lays out one object at most max wide, centred, as tall as the space it gets.
type column struct{ max float32 }

func (c column) MinSize(objs []fyne.CanvasObject) fyne.Size {
	if len(objs) == 0 {
		return fyne.Size{}
	}
	return objs[0].MinSize()
}

func (c column) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		w := min(size.Width, c.max)
		o.Resize(fyne.NewSize(w, max(size.Height, o.MinSize().Height)))
		o.Move(fyne.NewPos(roundPixels((size.Width-w)/2, layoutScale(objs)), 0)) // text on whole pixels
	}
}
