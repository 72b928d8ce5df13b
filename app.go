package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"edgechat/assets"
	"edgechat/config"
	"edgechat/documents"
	"edgechat/documents/embedmodel"
	"edgechat/history"
	"edgechat/inference/routes"
	"edgechat/internal/version"
	"edgechat/ui"
)

// runApp opens the chat window: edgechat [--config FILE] [--data-dir DIR].
func runApp(args []string) int {
	fs := flag.NewFlagSet("edgechat", flag.ContinueOnError)
	cfgFile := fs.String("config", "", "settings file (default "+config.DefaultFile()+")")
	dataDir := fs.String("data-dir", "", "conversations folder (default: the settings' data folder)")
	demoFlag(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "edgechat: unknown command %q — run edgechat --help\n", fs.Arg(0))
		return 2
	}
	if err := checkDisplay(); err != nil {
		fmt.Fprintf(os.Stderr, "edgechat: %v\n", err)
		return 1
	}
	a := app.NewWithID("io.edgechat.app")
	a.SetIcon(assets.Icon)
	st := &starter{app: a, cfgFile: *cfgFile, dataDir: *dataDir, stop: func() {}}
	a.Lifecycle().SetOnStarted(func() {
		st.running = true
		if st.main != nil {
			st.main.QuitOnSignals()
		}
	})
	st.start()
	a.Run()
	st.stop()
	return 0
}

// starter opens the chat window, or first a window showing what keeps it from opening (the
// settings file cannot be read, the data folder cannot be used) with the ways out; once one
// works, start-up goes on from there in the same app.
type starter struct {
	app     fyne.App
	cfgFile string
	dataDir string // --data-dir; "" = the settings' data folder

	settings *config.Store
	main     *ui.MainWindow
	stop     func()          // closes what open started
	running  bool            // the app has started (main goroutine only)
	problem  *ui.StartupView // the last start-up problem shown
}

// start takes the next step of start-up: open the settings, the conversations, the window.
func (st *starter) start() {
	if st.settings == nil {
		s, err := config.Open(st.cfgFile)
		if err != nil {
			st.problem = ui.ShowStartupProblem(st.app, st.settingsProblem(err), st.start)
			return
		}
		st.settings = s
	}
	ui.ApplyTheme(st.app, st.settings.Settings().Theme) // the problem windows too
	dir := st.dataDir
	if dir == "" {
		dir = st.settings.Settings().ConversationsDir()
	}
	conversations, err := history.Open(dir)
	if err != nil {
		st.problem = ui.ShowStartupProblem(st.app, st.dataProblem(dir, err), st.start)
		return
	}
	st.open(dir, conversations)
}

// open builds the engine and the chat window over the settings and conversations.
func (st *starter) open(dir string, conversations *history.Store) {
	settings := st.settings
	engine := routes.NewSwitch(newEngine(settings.Settings())) // engine.go: the inference wiring
	library := documents.NewLibrary()
	// The embedding model (the setting's, or one found on this PC) loads when a document
	// first needs it, on that document's indexing goroutine.
	library.SetEmbedder(embedmodel.Opener(settings.Settings(), settings.Settings().EmbeddingModel))
	library.SetReranker(embedmodel.RerankOpener(settings.Settings(), settings.Settings().RerankerModel))
	library.SetScans(scansFor(settings.Settings())) // scans.go: text recognition of scanned PDFs
	files := &documents.Store{Dir: dir, Library: library}
	// Attached documents' passages go into the question before the engine sees it.
	withDocuments := &documents.Engine{Next: engine, Library: library, Background: true, Budget: func() documents.Budget { return documentBudget(settings.Settings()) }}
	saved := settings.Settings()
	var srv localServer
	var notices []string
	if p := srv.apply(settings.Settings(), engine); p != "" {
		notices = append(notices, p)
	}
	tools := ui.NewMCPTools(settings.Settings) // MCP servers start on a reply's first need
	w := ui.New(st.app, ui.Deps{
		Engine:   withDocuments,
		Files:    files,
		Tester:   runtimeTester{routes.Tester{Engine: engine, Saved: settings.Settings}},
		Settings: settings,
		History:  conversations,
		NewSaver: func(c *history.Conversation) ui.Autosaver { return conversations.NewAutosaver(c, time.Second) },
		Problems: append(settings.Warnings(), conversations.Problems()...),
		Notices:  notices,
		// A new model or route takes effect for the next reply.
		About:     func() string { return version.Get().String() + "\n" + version.Runtime() },
		Models:    ui.Library{Settings: settings},
		BaseModel: func() bool { return isBaseModel(settings.Settings()) },
		Tools:     tools.Host,
		LoadModel: engine.Load, // after the chat's picker switched the model
		// ONNX Runtime and the model are checked when the window opens, not at the first reply.
		CheckModel: func() []ui.ModelProblem { return modelProblems(settings.Settings()) },
		SettingsSaved: func(s config.Settings) string {
			if needsNewEngine(saved, s) {
				engine.Set(newEngine(s))
			}
			if embedmodel.Changed(saved, s) {
				library.SetEmbedder(embedmodel.Opener(s, s.EmbeddingModel))
			}
			library.SetScans(scansFor(s))
			if embedmodel.RerankerChanged(saved, s) {
				library.SetReranker(embedmodel.RerankOpener(s, s.RerankerModel))
			}
			saved = s
			return srv.apply(s, engine)
		},
	})
	st.main = w
	st.stop = func() {
		w.Stopped()
		tools.Close()
		srv.stop()
		engine.Close()
		library.Close()
	}
	if st.running {
		w.QuitOnSignals()
	}
	w.Show()
}

// checkDisplay refuses to open the window where there is no graphical session, instead of
// letting the windowing library panic.
func checkDisplay() error {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd":
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return errors.New("no graphical display (DISPLAY and WAYLAND_DISPLAY are unset): start EdgeChat from your desktop, or use its commands — edgechat --help")
		}
	}
	return nil
}
