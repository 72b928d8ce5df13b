package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"time"

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
	settings, err := config.Open(*cfgFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "edgechat: %v\n", err)
		return 1
	}
	dir := *dataDir
	if dir == "" {
		dir = settings.Settings().ConversationsDir()
	}
	conversations, err := history.Open(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "edgechat: open the conversations folder: %v — pass --data-dir or fix data_dir in %s\n", err, settings.Path())
		return 1
	}

	engine := routes.NewSwitch(newEngine(settings.Settings())) // engine.go: the inference wiring
	library := documents.NewLibrary()
	// The embedding model (the setting's, or one found on this PC) loads when a document
	// first needs it, on that document's indexing goroutine.
	library.SetEmbedder(embedmodel.Opener(settings.Settings(), settings.Settings().EmbeddingModel))
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
	a := app.NewWithID("io.edgechat.app")
	a.SetIcon(assets.Icon)
	w := ui.New(a, ui.Deps{
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
		SettingsSaved: func(s config.Settings) string {
			// Only a change of routes rebuilds the engine (and drops the conversations' KV
			// caches); sampling, theme and system prompt travel with each request.
			if !reflect.DeepEqual(routes.FromSettings(saved), routes.FromSettings(s)) {
				engine.Set(newEngine(s))
			}
			if embedmodel.Changed(saved, s) {
				library.SetEmbedder(embedmodel.Opener(s, s.EmbeddingModel))
			}
			saved = s
			return srv.apply(s, engine)
		},
	})
	w.ShowAndRun()
	tools.Close()
	srv.stop()
	engine.Close()
	library.Close()
	return 0
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
