package ui

import (
	"context"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"

	"edgechat/config"
	"edgechat/history"
	"edgechat/models/discover"
)

// Deps is what the window needs from main: typed dependencies, no globals.
type Deps struct {
	Engine   Engine
	Tester   ModelTester // nil hides nothing; Test then says it is unavailable
	Settings SettingsStore
	History  Conversations
	// NewSaver opens the autosaver of a conversation (history.Store.NewAutosaver).
	NewSaver func(*history.Conversation) Autosaver
	// Files keeps attached documents (documents.Store); nil hides attaching.
	Files AttachmentFiles
	// Problems are shown once after the window opens (unreadable conversations, settings
	// warnings): saved data that was set aside.
	Problems []string
	// Notices are shown with them: other things to fix (e.g. the local server's port is taken).
	Notices []string
	// SettingsSaved, if set, is called after the settings were saved from the settings pane
	// or the welcome page (main rebuilds the engine for the new model, starts or stops the
	// local server). A non-empty result is a problem to show under the settings.
	SettingsSaved func(config.Settings) string
	// About returns the version text of the About box (version, commit, ONNX Runtime).
	About func() string
	// Models finds and downloads models for the Models view (nil hides it).
	Models ModelLibrary
	// BaseModel reports whether the model of the current settings is a base model (no chat
	// template): the chat then completes text (nil: never).
	BaseModel func() bool
	// Tools returns the MCP servers' tool host, nil while the user added none (MCPTools.Host).
	Tools func() ToolHost
	// LoadModel loads the engine's model ahead of the first reply, passing on the engine's
	// status lines (routes.Switch.Load); the chat calls it after a switch of model, on a
	// goroutine of its own. nil: models load with the first reply.
	LoadModel func(ctx context.Context, status func(string)) error
	// CheckModel finds what would make every reply fail (ONNX Runtime does not load, the
	// model cannot be opened); it runs off the main goroutine when the window opens and after
	// the settings or the model change, and the window shows its problems in a banner (nil:
	// no check).
	CheckModel func() []ModelProblem
}

// MainWindow is EdgeChat's window: sidebar and chat, the settings pane, or the welcome page.
type MainWindow struct {
	Window   fyne.Window
	Chat     *ChatVM
	Sidebar  *SidebarVM
	Settings *SettingsVM
	Welcome  *WelcomeVM
	Models   *ModelsVM // nil without Deps.Models

	ChatView     *ChatView
	SidebarView  *Sidebar
	SettingsView *SettingsView
	WelcomeView  *WelcomeView
	ModelsView   *ModelsView
	// Banner shows the problems CheckModel found.
	Banner *ProblemBanner

	app       fyne.App
	deps      Deps
	right     *fyne.Container // chat or settings, beside the sidebar
	main      fyne.CanvasObject
	shortcuts map[string]func()
	dataDir   string // the conversations folder opened at start
	check     modelCheck
	checked   <-chan struct{} // the last CheckModel's, for tests
	// keysHelp is the open list of keys (ShowKeys), nil while it is closed.
	keysHelp dialog.Dialog
	// showModelsByKey opens the Models view for its shortcut (nil without Deps.Models).
	showModelsByKey func()
}

// New builds the window and its view models; call ShowAndRun (or Window.Show) next.
func New(a fyne.App, d Deps) *MainWindow {
	m := &MainWindow{app: a, deps: d, Window: a.NewWindow("EdgeChat"), shortcuts: map[string]func(){}}
	s := d.Settings.Settings()
	m.dataDir = s.ConversationsDir()
	ApplyTheme(a, s.Theme)

	switcher := &settingsModels{store: d.Settings, saved: m.modelSaved, load: d.LoadModel, found: m.foundModels,
		npu: func() bool { return get[bool](m.Settings.NPUFound) }}
	m.Chat = NewChatVM(ChatDeps{Engine: d.Engine, Store: d.History, NewSaver: d.NewSaver, Settings: d.Settings.Settings, Files: d.Files, BaseModel: d.BaseModel, Tools: d.Tools, Models: switcher})
	m.Sidebar = NewSidebarVM(d.History)
	m.Settings = NewSettingsVM(d.Settings, d.Tester)
	m.Welcome = NewWelcomeVM(d.Settings)
	m.Welcome.NPUFound = m.Settings.NPUFound

	m.Chat.OnListChanged = m.Sidebar.Reload
	m.Sidebar.RenameOpen = m.Chat.Rename
	m.Sidebar.CloseIfOpen = func(id string) {
		if get[string](m.Chat.CurrentID) == id {
			m.Chat.NewChat()
		}
	}
	m.Settings.OnSaved = m.settingsSaved
	m.Welcome.OnReady = m.modelChosen

	m.ChatView = NewChatView(m.Chat, m.Window, m.ShowSettings)
	m.SidebarView = NewSidebar(m.Sidebar, m.Window, m.open, m.NewChat)
	m.SettingsView = NewSettingsView(m.Settings, m.Window, m.ShowChat)
	m.WelcomeView = NewWelcomeView(m.Welcome, m.Window, m.ShowSettings)
	m.Chat.CurrentID.AddListener(bindingListener(func() { m.SidebarView.SetCurrent(get[string](m.Chat.CurrentID)) }))
	m.newModels(d.Models)

	m.right = container.NewStack(m.ChatView.Content)
	split := container.NewHSplit(m.SidebarView.Content, m.right)
	split.Offset = 0.26
	var main *fyne.Container
	m.Banner = newProblemBanner(m.showRuntime, m.chooseModel, func() { main.Refresh() })
	main = container.NewBorder(m.Banner.Content, nil, nil, nil, split)
	main.Add(newTipLayer()) // last: the icon buttons' tips are drawn over the rest
	m.main = main
	m.installShortcuts()
	m.Window.SetCloseIntercept(m.confirmQuit)
	m.Window.Resize(fyne.NewSize(1100, 720))
	m.Sidebar.Reload()
	if HasModel(s) {
		m.ShowChat()
	} else {
		m.ShowWelcome()
	}
	// Last: their results redraw views that must exist by then.
	scanned := make(chan struct{})
	m.check.scanned = scanned
	if m.Models != nil {
		m.Models.Refresh(func() { close(scanned) })
	} else {
		close(scanned)
	}
	m.CheckModel()
	return m
}

// ShowAndRun opens the window, reports stored problems once and runs the app. SIGINT and
// SIGTERM close the window as Quit does.
func (m *MainWindow) ShowAndRun() {
	m.app.Lifecycle().SetOnStarted(m.quitOnSignals)
	m.Window.Show()
	m.reportProblems()
	m.app.Run()
	m.Chat.Close() // the app stopped some other way: still end the reply and save it
}

// Show opens the window and reports stored problems once, for a caller that runs the app
// itself (the window may open after a start-up problem was solved in a window of its own).
// Such a caller calls QuitOnSignals once the app has started and Stopped after it ran.
func (m *MainWindow) Show() {
	m.Window.Show()
	m.reportProblems()
}

// QuitOnSignals makes SIGINT and SIGTERM close this window as Quit does; call it on the main
// goroutine once the app has started (see quitOnSignals).
func (m *MainWindow) QuitOnSignals() { m.quitOnSignals() }

// Stopped ends the reply being written and saves it, if the app stopped another way than
// Quit. For a window opened with Show.
func (m *MainWindow) Stopped() {
	if m.Models != nil {
		m.Models.Close()
	}
	m.check.running.Wait() // after the scan it may wait for ended
	m.ChatView.stopOlder()
	m.Chat.Close()
}

// reportProblems shows, once, what was found at start. Each problem says itself what
// happened (a file moved aside, a save recovered, a value replaced by its default), so the
// dialog adds no claim of its own.
func (m *MainWindow) reportProblems() {
	if len(m.deps.Problems)+len(m.deps.Notices) == 0 {
		return
	}
	title, msg := problemsText(m.deps.Problems, m.deps.Notices)
	d := dialog.NewInformation(title, msg, m.Window)
	d.Resize(fyne.NewSize(560, 240))
	// Let the window appear first.
	go func() {
		time.Sleep(300 * time.Millisecond)
		fyne.Do(d.Show)
	}()
}

// problemsText is the title and text of the start-up dialog: the problems and notices as
// they were reported, one per paragraph.
func problemsText(problems, notices []string) (title, msg string) {
	title = "EdgeChat needs your attention"
	if len(problems) > 0 {
		title = "EdgeChat checked your saved data"
	}
	return title, "• " + strings.Join(append(slices.Clone(problems), notices...), "\n\n• ")
}

// ShowChat shows the sidebar and chat (or the welcome page when no model is set).
func (m *MainWindow) ShowChat() {
	if !HasModel(m.deps.Settings.Settings()) {
		m.ShowWelcome()
		return
	}
	m.showModel()
	// Only when something else is shown: refreshing the chat that is already there redraws
	// every bubble (a chat opened from the sidebar spent a third of its time here).
	if len(m.right.Objects) != 1 || m.right.Objects[0] != m.ChatView.Content {
		m.right.Objects = []fyne.CanvasObject{m.ChatView.Content}
		m.right.Refresh()
	}
	if m.Window.Content() != m.main {
		m.Window.SetContent(m.main)
	}
	m.ChatView.FocusComposer()
}

// showModel names the model that answers in the chat's header.
func (m *MainWindow) showModel() { m.Chat.RefreshModel() }

// foundModels are the Models view's last scan (nil without a library).
func (m *MainWindow) foundModels() []discover.Model {
	if m.Models == nil {
		return nil
	}
	return m.Models.Found()
}

// modelSaved runs after the chat's picker saved a model: main rebuilds the engine, and the
// settings pane shows the new settings.
func (m *MainWindow) modelSaved(s config.Settings) {
	m.Settings.Reset()
	if m.deps.SettingsSaved != nil {
		m.deps.SettingsSaved(s)
	}
	m.CheckModel()
}

// ShowSettings shows the settings pane beside the sidebar.
func (m *MainWindow) ShowSettings() {
	m.Settings.Reset()
	m.Settings.Validate()
	m.unfocus()
	m.right.Objects = []fyne.CanvasObject{m.SettingsView.Content}
	m.SettingsView.Shown()
	m.right.Refresh()
	m.Window.SetContent(m.main)
}

// modelChosen runs after the welcome page or the Models view saved a model: the chat shows
// it, loading it when the engine can load ahead.
func (m *MainWindow) modelChosen(s config.Settings) {
	m.modelSaved(s)
	m.ShowChat()
	if m.deps.LoadModel != nil {
		m.Chat.LoadModel()
	}
}

// newModels builds the Models view and scans (modelsview.go); without a library its buttons
// are hidden.
func (m *MainWindow) newModels(lib ModelLibrary) {
	if lib == nil {
		m.WelcomeView.Models.Hide()
		m.SettingsView.Models.Hide()
		return
	}
	m.Models = NewModelsVM(lib, m.deps.Settings)
	m.Models.NPUFound = m.Settings.NPUFound
	m.Models.OnUse = m.modelChosen
	back := m.ShowSettings
	m.ModelsView = NewModelsView(m.Models, m.Window, func() { back() })
	redraw := m.Models.OnChanged
	m.Models.OnChanged = func() { // the chat's header names the model as the scan does
		redraw()
		fyne.Do(m.Chat.RefreshModel)
	}
	m.WelcomeView.Models.OnTapped = func() { back = m.ShowWelcome; m.ShowModels() }
	m.SettingsView.Models.OnTapped = func() { back = m.ShowSettings; m.ShowModels() }
	m.ChatView.OnManageModels = func() { back = m.ShowChat; m.ShowModels() }
	m.showModelsByKey = func() { // Ctrl+Shift+M: Back returns to the welcome page or the chat
		back = m.ShowChat
		if m.Window.Content() == m.WelcomeView.Content {
			back = m.ShowWelcome
		}
		m.ShowModels()
	}
}

// ShowModels shows the Models view: beside the sidebar once a model is set, else alone.
func (m *MainWindow) ShowModels() {
	if m.ModelsView == nil {
		return
	}
	m.unfocus()
	if !HasModel(m.deps.Settings.Settings()) {
		m.Window.SetContent(m.ModelsView.Content)
		return
	}
	m.right.Objects = []fyne.CanvasObject{m.ModelsView.Content}
	m.right.Refresh()
	m.Window.SetContent(m.main)
}

// ShowWelcome shows the first-run page.
func (m *MainWindow) ShowWelcome() { m.Window.SetContent(m.WelcomeView.Content) }

// NewChat starts an empty conversation (Ctrl+N).
func (m *MainWindow) NewChat() {
	m.Chat.NewChat()
	m.ChatView.Shown()
	m.ShowChat()
}

func (m *MainWindow) open(id string) {
	if err := m.Chat.Open(id); err == nil {
		m.ChatView.Shown()
		m.ShowChat()
	}
}

func (m *MainWindow) settingsSaved(s config.Settings) {
	problem := ""
	if m.deps.SettingsSaved != nil {
		problem = m.deps.SettingsSaved(s)
	}
	ApplyTheme(m.app, s.Theme)
	m.CheckModel()
	_ = m.Chat.Thinking.Set(s.Thinking)
	m.Chat.RefreshModel()
	m.Chat.RetryFailed() // text recognition turned on reads a scan
	switch {
	case problem != "":
		m.Settings.setSummary(SummaryWarning, "Saved, but "+problem)
	case s.ConversationsDir() != m.dataDir:
		m.Settings.setSummary(SummarySuccess, "Saved. The new data folder is used after EdgeChat restarts.")
	}
}
