package ui

import (
	"os"
	"path/filepath"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"edgechat/config"
	"edgechat/internal/eps"
)

// SettingsView shows a SettingsVM as a form with pickers, inline errors, Test and Save.
type SettingsView struct {
	binder
	vm     *SettingsVM
	win    fyne.Window
	Save   *widget.Button
	Close  *widget.Button
	Models *widget.Button // opens the Models view (the window sets its action)
	// OCR is the switch of text recognition for scanned PDFs (settingsocr.go).
	OCR *widget.Check
	// KVCache picks the CPU model's KV cache (settingskv.go).
	KVCache *widget.Select
	Content fyne.CanvasObject
	// Summary shows what Save did, coloured by its kind.
	Summary *widget.Label
	// NPU holds the NPU's settings, shown where an NPU runtime is found or an NPU model is
	// set; NoNPU is the line shown instead.
	NPU, NoNPU fyne.CanvasObject
	scroll     *container.Scroll
	runtime    fyne.CanvasObject // the Runtime section's heading
	// runtimesListed is closed once the runtimes found on this PC are shown (runtimes.go).
	runtimesListed chan struct{}
	entries        map[string]*widget.Entry

	findRuntimes func() // starts the search runtimeList shows; nil without a RuntimeFinder
	findOnce     sync.Once
}

// NewSettingsView builds the pane; onClose goes back to the chat.
func NewSettingsView(vm *SettingsVM, win fyne.Window, onClose func()) *SettingsView {
	v := &SettingsView{vm: vm, win: win, entries: map[string]*widget.Entry{}}
	scroll := container.NewVScroll(nil)
	runtimeHead := section("Runtime")
	v.runtime = runtimeHead
	ocrCheck, ocrFound := v.ocrCheck() // settingsocr.go
	// The NPU's settings only where this PC has an NPU runtime (or an NPU model is set);
	// elsewhere one line says the CPU is used.
	npu := container.NewVBox(
		section("NPU"),
		v.form(
			v.item("Model", "npu.model", v.pathRow("npu.model", true, true, "npu")),
			v.item("Model file", "npu.model_file", v.entry("npu.model_file", "model variant inside onnx/ (empty = best available)")),
			hint(v.item("Accelerator", "npu.ep", v.epRow("npu.ep")), epHint),
			hint(v.item("Accelerator options", "npu.ep_options", v.entry("npu.ep_options", eps.FormatOptions(eps.WithDefaults("qnn", nil)))), epOptionsHint),
		),
		v.testResult("npu"),
	)
	v.scroll = scroll
	v.NoNPU = noNPULine(v.ShowRuntime)
	npuRuntime := v.form(
		v.item("NPU prefill limit", "prefill_limit", v.entry("prefill_limit", "0 = from the NPU model")),
		v.item("Battery saver QNN mode", "power.saver_htp_mode", widget.NewSelectWithData(eps.HTPModes, vm.Fields["power.saver_htp_mode"])),
	)
	powerNPU := caption("auto: on battery or with the energy saver on, models run in battery saver (half the CPU threads, no spin-waiting, the NPU at the QNN mode above); on AC power at full speed. performance or saver pins one.")
	powerCPU := caption("auto: on battery or with the energy saver on, models run in battery saver (half the CPU threads, no spin-waiting); on AC power at full speed. performance or saver pins one.")
	remoteLong := container.NewVBox(v.form(widget.NewFormItem("Long prompts", widget.NewCheckWithData("Send prompts over the NPU limit here instead of the CPU", vm.RemoteLong))))
	v.NPU = npu
	showNPU := func() {
		on := get[bool](vm.NPUFound) || get[string](vm.Fields["npu.model"]) != ""
		for _, o := range []fyne.CanvasObject{npu, npuRuntime, powerNPU, remoteLong} {
			showIf(o, on)
		}
		showIf(v.NoNPU, !on)
		showIf(powerCPU, !on)
	}
	v.on(vm.NPUFound, showNPU)
	v.on(vm.Fields["npu.model"], showNPU)
	form := container.NewVBox(
		npu,
		v.NoNPU,
		section("CPU"),
		v.form(
			v.item("Model", "cpu.model", v.pathRow("cpu.model", true, true, "cpu")),
			v.item("Model file", "cpu.model_file", v.entry("cpu.model_file", "model variant inside onnx/ (empty = best available)")),
			hint(v.item("Accelerator", "cpu.ep", v.epRow("cpu.ep")), epHint),
			hint(v.item("Accelerator options", "cpu.ep_options", v.entry("cpu.ep_options", "key=value, key=value")), epOptionsHint),
			v.item("Threads", "cpu.threads", v.entry("cpu.threads", "0 = all physical cores")),
		),
		v.testResult("cpu"),
		section("Models"),
		v.form(
			widget.NewFormItem("", v.modelsButton()),
			v.item("Models folder", "models_dir", v.pathRow("models_dir", true, false, "")),
			widget.NewFormItem("", modelsFolderNote()),
			v.item("Other model folders", "model_folders", v.entry("model_folders", "more folders to look for models in, separated by "+string(os.PathListSeparator))),
			v.item("Hugging Face token", "hf_token", v.password("hf_token")),
			v.item("Embedding model", "embedding_model", v.pathRow("embedding_model", true, false, "")),
			v.item("Reranker", "reranker_model", v.pathRow("reranker_model", true, false, "")),
		),
		caption("The embedding model ranks attached documents' passages by meaning as well as by keywords (e.g. all-MiniLM-L6-v2, bge-small or Qwen3-Embedding-0.6B ONNX); the reranker, a cross-encoder (e.g. ms-marco-MiniLM-L-6-v2 or bge-reranker-base ONNX), re-orders the best of them. Empty: use one found on this PC; \"off\": none."),
		section("Documents"),
		v.form(
			widget.NewFormItem("Scanned PDFs", ocrCheck),
			widget.NewFormItem("", ocrFound),
			v.item("Tesseract", "ocr.tesseract", v.pathRow("ocr.tesseract", false, true, "")),
			v.item("Languages", "ocr.languages", v.entry("ocr.languages", "eng (tesseract's codes joined by +, e.g. eng+deu)")),
		),
		v.toolsSection(),
		runtimeHead,
		v.form(
			v.item("ONNX Runtime library", "ort_library", v.pathRow("ort_library", false, true, "")),
			v.item("Power mode", "power.mode", widget.NewSelectWithData(eps.PowerModes, vm.Fields["power.mode"])),
		),
		npuRuntime,
		powerNPU,
		powerCPU,
		v.runtimeList(),
		section("Generation"),
		v.form(
			v.item("Temperature", "temperature", v.entry("temperature", "0.6")),
			v.item("Top-p", "top_p", v.entry("top_p", "0.95")),
			v.item("Top-k", "top_k", v.entry("top_k", "20")),
			v.item("Max tokens", "max_tokens", v.entry("max_tokens", "1024")),
			v.item("Repetition penalty", "repetition_penalty", v.entry("repetition_penalty", "1.0")),
			v.item("System prompt", "system_prompt", v.multiline("system_prompt")),
			widget.NewFormItem("Thinking", widget.NewCheckWithData("Show Qwen3's reasoning by default", vm.Thinking)),
			widget.NewFormItem("Prompt lookup", widget.NewCheckWithData("Copy repeated text from the conversation in one step (same replies, faster quotes and edits)", vm.Lookup)),
			hint(v.item("KV cache", "kv_cache", v.kvCacheSelect()), kvCacheHint),
			widget.NewFormItem("Prompts", promptInt8Check(vm)),
		),
		section("Remote server (optional)"),
		v.form(
			v.item("Base URL", "remote.base_url", v.entry("remote.base_url", "e.g. http://localhost:11434/v1 (any OpenAI-compatible server)")),
			v.item("Model", "remote.model", v.entry("remote.model", "model name on that server (empty = its first)")),
			v.item("API key", "remote.api_key", v.password("remote.api_key")),
		),
		remoteLong,
		section("Local server"),
		v.form(
			widget.NewFormItem("Server", widget.NewCheckWithData("Serve this model to other apps (OpenAI-compatible API)", vm.ServerOn)),
			v.item("Address", "server.addr", v.entry("server.addr", "127.0.0.1:8080 (loopback only unless you change it)")),
			v.item("API key", "server.api_key", v.password("server.api_key")),
		),
		section("Appearance and data"),
		v.form(
			v.item("Theme", "theme", widget.NewSelectWithData(config.Themes, vm.Fields["theme"])),
			v.item("Data folder", "data_dir", v.pathRow("data_dir", true, false, "")),
		),
	)

	// What an empty path means, where it may be empty: the field that a start-up problem sends
	// the user to (a library that did not load) gave no hint that emptying it is the way back.
	v.entries["models_dir"].SetPlaceHolder(config.DefaultModelsDir())
	v.entries["ort_library"].SetPlaceHolder("empty: the ONNX Runtime that came with EdgeChat")
	v.entries["data_dir"].SetPlaceHolder("empty: " + config.DefaultDataDir())
	v.entries["ocr.tesseract"].SetPlaceHolder("empty: the tesseract on PATH (on Windows also in C:\\Program Files\\Tesseract-OCR)")
	summary := widget.NewLabelWithData(vm.Summary)
	v.Summary = summary
	summary.Wrapping = fyne.TextWrapWord
	v.on(vm.Summary, func() {
		summary.Importance = summaryImportance[get[int](vm.SummaryLevel)]
		summary.Refresh()
	})
	v.Save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), func() { _ = vm.Save() })
	v.Save.Importance = widget.HighImportance
	v.Close = widget.NewButtonWithIcon("Back to chat", theme.NavigateBackIcon(), func() {
		if vm.Dirty() { // Back dropped the edits without a word
			v.askUnsaved(onClose)
			return
		}
		vm.Reset()
		onClose()
	})
	title := widget.NewLabel("Settings")
	title.TextStyle = fyne.TextStyle{Bold: true}
	header := container.NewBorder(nil, nil, v.Close, nil, title)
	footer := container.NewBorder(nil, nil, nil, v.Save, summary)
	scroll.Content = container.NewPadded(form)
	v.Content = container.NewBorder(header, container.NewPadded(footer), nil, nil, scroll)
	return v
}

// askUnsaved asks what to do with edits not saved when the user goes back: save them (and go
// back when they are valid), discard them, or keep editing.
func (v *SettingsView) askUnsaved(onClose func()) {
	var d dialog.Dialog
	save := widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), func() {
		d.Hide()
		if v.vm.Save() == nil {
			onClose()
		} // else the fields marked in red say what to fix
	})
	save.Importance = widget.HighImportance
	discard := widget.NewButton("Discard changes", func() {
		d.Hide()
		v.vm.Reset()
		onClose()
	})
	keep := widget.NewButton("Keep editing", func() { d.Hide() })
	msg := widget.NewLabel("You changed settings without saving them.")
	c := dialog.NewCustomWithoutButtons("Save your changes?", msg, v.win)
	c.SetButtons([]fyne.CanvasObject{keep, discard, save})
	d = c
	d.Show()
}

// modelsFolderNote says where downloads go by default and that models in the folder earlier
// versions used are still found there.
func modelsFolderNote() fyne.CanvasObject {
	note := "Downloaded models go here; empty: " + config.DefaultModelsDir() + "."
	if d := config.EarlierModelsDir(); d != "" && d != config.DefaultModelsDir() {
		if _, err := os.Stat(d); err == nil {
			note += " Models in " + d + " (where earlier versions put them) are still found and used there."
		}
	}
	return caption(note)
}

// ShowRuntime scrolls to the Runtime section (the ONNX Runtime library).
func (v *SettingsView) ShowRuntime() {
	v.scroll.ScrollToOffset(fyne.NewPos(0, v.runtime.Position().Y))
}

func (v *SettingsView) modelsButton() fyne.CanvasObject {
	v.Models = widget.NewButtonWithIcon("Find and download models…", theme.DownloadIcon(), nil)
	return container.NewHBox(v.Models)
}

// summaryImportance is how each kind of settings summary is drawn.
var summaryImportance = map[int]widget.Importance{
	SummaryError: widget.DangerImportance, SummarySuccess: widget.SuccessImportance, SummaryWarning: widget.WarningImportance,
}

// testResult shows the Test button's progress and summary under the route it tested.
func (v *SettingsView) testResult(route string) fyne.CanvasObject {
	result := widget.NewLabelWithData(v.vm.Result)
	result.Wrapping = fyne.TextWrapWord
	result.TextStyle = fyne.TextStyle{Monospace: true}
	progress := newBarSlot()
	box := container.NewVBox(progress.Box, result)
	update := func() {
		mine := get[string](v.vm.Tested) == route
		showIf(box, mine && get[string](v.vm.Result) != "")
		progress.run(mine && get[bool](v.vm.Testing))
	}
	v.on(v.vm.Tested, update)
	v.on(v.vm.Result, update)
	v.on(v.vm.Testing, update)
	return box
}

func section(title string) fyne.CanvasObject {
	l := widget.NewLabel(title)
	l.TextStyle = fyne.TextStyle{Bold: true}
	l.SizeName = theme.SizeNameSubHeadingText
	return l
}

func (v *SettingsView) form(items ...*widget.FormItem) fyne.CanvasObject {
	return widget.NewForm(items...)
}

// item pairs a field's widget with its inline error label.
func (v *SettingsView) item(label, key string, w fyne.CanvasObject) *widget.FormItem {
	errLabel := widget.NewLabelWithData(v.vm.Errors[key])
	errLabel.Wrapping = fyne.TextWrapWord
	errLabel.Importance = widget.DangerImportance
	errLabel.SizeName = theme.SizeNameCaptionText
	v.on(v.vm.Errors[key], func() { showIf(errLabel, get[string](v.vm.Errors[key]) != "") })
	box := container.NewVBox(w, errLabel)
	if env := v.vm.Overridden[key]; env != "" {
		note := widget.NewLabel("Set by " + env + " for this run: Save keeps the file's value while the variable is set.")
		note.Wrapping = fyne.TextWrapWord
		note.Importance = widget.WarningImportance
		note.SizeName = theme.SizeNameCaptionText
		box.Add(note)
	}
	return widget.NewFormItem(label, box)
}

func (v *SettingsView) entry(key, hint string) *widget.Entry {
	e := widget.NewEntryWithData(v.vm.Fields[key])
	e.Validator = nil // errors show inline, with what to do
	e.SetPlaceHolder(hint)
	v.entries[key] = e
	return e
}

// password is an entry whose text is hidden, for API keys.
func (v *SettingsView) password(key string) *widget.Entry {
	e := v.entry(key, "")
	e.Password = true
	return e
}

func (v *SettingsView) multiline(key string) *widget.Entry {
	e := widget.NewEntryWithData(v.vm.Fields[key])
	e.Validator = nil
	e.MultiLine, e.Wrapping = true, fyne.TextWrapWord
	e.SetMinRowsVisible(3)
	e.SetPlaceHolder("Optional instructions sent before every conversation")
	v.entries[key] = e
	return e
}

// The accelerator fields' labels are words a user knows; their hints say, for an expert, that
// they are ONNX Runtime's execution provider (npu.ep, cpu.ep in the settings file) and its
// provider options.
const (
	epHint        = "What runs the model: cpu, qnn (Qualcomm NPU), dml (DirectML GPU) or webgpu — ONNX Runtime's execution provider"
	epOptionsHint = "Options passed to that execution provider as key=value pairs; empty = its defaults"
)

// hint adds a small wrapping line under a form item's field (not FormItem.HintText: that is
// one unwrapped line, which would widen the pane to its length).
func hint(it *widget.FormItem, text string) *widget.FormItem {
	box := it.Widget.(*fyne.Container) // item's: the field, then its error and notes
	box.Objects = append([]fyne.CanvasObject{box.Objects[0], caption(text)}, box.Objects[1:]...)
	return it
}

func (v *SettingsView) epRow(key string) fyne.CanvasObject {
	e := widget.NewSelectEntry(config.EPs)
	e.Bind(v.vm.Fields[key])
	e.Validator = nil
	return e
}

// pathRow is an entry with folder and/or file pickers and, for a route, a Test button.
func (v *SettingsView) pathRow(key string, folder, file bool, route string) fyne.CanvasObject {
	e := v.entry(key, "")
	var buttons []fyne.CanvasObject
	if folder {
		buttons = append(buttons, widget.NewButtonWithIcon("Folder…", theme.FolderOpenIcon(), func() { v.pickFolder(key) }))
	}
	if file {
		buttons = append(buttons, widget.NewButtonWithIcon("File…", theme.FileIcon(), func() { v.pickFile(key) }))
	}
	if route != "" {
		test := widget.NewButtonWithIcon("Test", theme.MediaPlayIcon(), func() { v.vm.Test(route) })
		v.on(v.vm.Testing, func() {
			if get[bool](v.vm.Testing) {
				test.Disable()
			} else {
				test.Enable()
			}
		})
		buttons = append(buttons, test)
	}
	return container.NewBorder(nil, nil, nil, container.NewHBox(buttons...), e)
}

func (v *SettingsView) pickFolder(key string) {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err == nil && u != nil {
			_ = v.vm.Fields[key].Set(u.Path())
		}
	}, v.win)
	startIn(d, get[string](v.vm.Fields[key]))
	d.Resize(fyne.NewSize(760, 520))
	d.Show()
}

func (v *SettingsView) pickFile(key string) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err == nil && r != nil {
			_ = v.vm.Fields[key].Set(r.URI().Path())
			_ = r.Close()
		}
	}, v.win)
	startIn(d, get[string](v.vm.Fields[key]))
	d.Resize(fyne.NewSize(760, 520))
	d.Show()
}

// startIn opens a file dialog at the current value's folder, else the home folder.
func startIn(d *dialog.FileDialog, current string) {
	dir := current
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(current)
	}
	if fi, err := os.Stat(dir); current == "" || err != nil || !fi.IsDir() {
		dir, _ = os.UserHomeDir()
	}
	if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
		d.SetLocation(l)
	}
}

// promptInt8Check is the Prompts switch, off and saying why where the processor's 8-bit
// kernels are not exact (SettingsVM.Int8Refused).
func promptInt8Check(vm *SettingsVM) *widget.Check {
	c := widget.NewCheckWithData("8-bit on the CPU: replies start a little sooner where EdgeChat's kernels run (twice as soon elsewhere), ~0.45 GB more memory", vm.PromptInt8)
	if vm.Int8Refused != "" {
		c.Text = "8-bit: not on this processor (it lacks VNNI, its 8-bit sums overflow)"
		c.Disable()
	}
	return c
}
