package ui

import (
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// ModelProblem is something found when the window opens that would make every reply fail —
// the ONNX Runtime library cannot be loaded, the configured model cannot be opened — with
// the way out. The window shows it in a banner at once instead of in the first reply's
// bubble; the rest of the app works meanwhile.
type ModelProblem struct {
	Message string
	Fix     ProblemFix
}

// ProblemFix is where a ModelProblem's way out is.
type ProblemFix int

const (
	// FixRuntime: Settings → Runtime, to choose the ONNX Runtime library.
	FixRuntime ProblemFix = iota
	// FixModel: choose another model (the Models view, else Settings).
	FixModel
)

// ProblemBanner shows the model problems across the top of the window, each way out a
// button, until they are fixed or dismissed. It is built and changed on the main goroutine.
type ProblemBanner struct {
	Content *fyne.Container
	Text    *widget.Label
	// Runtime opens Settings → Runtime; Model the Models view; Dismiss hides the banner.
	Runtime, Model *widget.Button
	Dismiss        *tipButton
	// relayout lays out what holds the banner after it appeared or went.
	relayout func()
}

// newProblemBanner builds the banner, hidden; showRuntime and chooseModel are its ways out,
// relayout lays out its container.
func newProblemBanner(showRuntime, chooseModel, relayout func()) *ProblemBanner {
	b := &ProblemBanner{Text: widget.NewLabel(""), relayout: relayout}
	b.Text.Wrapping = fyne.TextWrapWord
	b.Text.Importance = widget.DangerImportance
	b.Text.Selectable = true // paths can be copied
	b.Runtime = widget.NewButtonWithIcon("Open Settings → Runtime", theme.SettingsIcon(), showRuntime)
	b.Model = widget.NewButtonWithIcon("Choose another model", theme.FolderOpenIcon(), chooseModel)
	b.Dismiss = newTipButton(theme.WindowCloseIcon(), "Dismiss", nil)
	b.Dismiss.Importance = widget.LowImportance
	icon := container.NewGridWrap(fyne.NewSize(32, 32), widget.NewIcon(theme.WarningIcon()))
	buttons := container.NewHBox(b.Runtime, b.Model)
	b.Content = container.NewVBox(
		container.NewPadded(container.NewBorder(nil, buttons, container.NewCenter(icon), container.NewVBox(b.Dismiss), b.Text)),
		widget.NewSeparator(),
	)
	b.Dismiss.OnTapped = func() {
		b.Content.Hide()
		b.relayout()
	}
	b.Content.Hide()
	return b
}

// show shows problems (none hides the banner) with the ways out they need.
func (b *ProblemBanner) show(problems []ModelProblem) {
	defer b.relayout()
	if len(problems) == 0 {
		b.Content.Hide()
		return
	}
	var msgs []string
	need := map[ProblemFix]bool{}
	for _, p := range problems {
		msgs = append(msgs, p.Message)
		need[p.Fix] = true
	}
	b.Text.SetText(strings.Join(msgs, "\n"))
	showIf(b.Runtime, need[FixRuntime])
	showIf(b.Model, need[FixModel])
	b.Content.Show()
	b.Content.Refresh()
}

// modelCheck runs Deps.CheckModel off the main goroutine, one result shown at a time: a
// check started later wins over an earlier one that ends after it.
type modelCheck struct {
	mu      sync.Mutex
	latest  int
	shown   bool // the banner shows problems (Dismiss only hides it)
	running sync.WaitGroup
	// scanned closes when the Models view's first scan has shown its list: a problem is
	// shown after it, so that the two reach the widgets one at a time (also under the test
	// driver, which runs fyne.Do on the calling goroutine).
	scanned <-chan struct{}
}

// CheckModel checks the runtime and the configured models in the background and shows what
// it finds in the banner (nothing hides it); the channel closes once the banner shows the
// result. Without Deps.CheckModel it does nothing.
func (m *MainWindow) CheckModel() <-chan struct{} {
	done := make(chan struct{})
	check := m.deps.CheckModel
	if check == nil {
		close(done)
		m.checked = done
		return done
	}
	m.check.mu.Lock()
	m.check.latest++
	gen := m.check.latest
	m.check.mu.Unlock()
	m.check.running.Add(1)
	m.checked = done
	go func() {
		defer m.check.running.Done()
		defer close(done)
		problems := check()
		m.check.mu.Lock()
		// A later check decides; nothing found and nothing shown leaves the widgets alone.
		apply := gen == m.check.latest && (len(problems) > 0 || m.check.shown)
		if apply {
			m.check.shown = len(problems) > 0
		}
		m.check.mu.Unlock()
		if apply {
			<-m.check.scanned
			fyne.Do(func() { m.Banner.show(problems) })
		}
	}()
	return done
}

// Checked closes once the last CheckModel's result is shown.
func (m *MainWindow) Checked() <-chan struct{} { return m.checked }

// chooseModel is the banner's way out of a broken model: the Models view, else Settings.
func (m *MainWindow) chooseModel() {
	if m.ModelsView != nil {
		m.ShowModels()
		return
	}
	m.ShowSettings()
}

// showRuntime is the banner's way out of an ONNX Runtime that does not load.
func (m *MainWindow) showRuntime() {
	m.ShowSettings()
	m.SettingsView.ShowRuntime()
}
