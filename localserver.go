package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"edgechat/config"
	"edgechat/server"
)

// localServer runs the OpenAI-compatible API next to the window when the settings ask for
// it; the window and the server share one engine.
type localServer struct {
	mu   sync.Mutex
	srv  *server.Server
	opts server.Options
}

// apply starts, restarts or stops the server to match s. It returns a problem a person can act
// on (e.g. the port is taken), or "".
func (l *localServer) apply(s config.Settings, gen server.Generator) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	want := server.Options{Addr: s.Server.Addr, APIKey: s.Server.APIKey}
	if l.srv != nil && s.Server.Enabled && want.Addr == l.opts.Addr && want.APIKey == l.opts.APIKey {
		return ""
	}
	l.stopLocked()
	if !s.Server.Enabled {
		return ""
	}
	srv := server.New(gen, want)
	addr, err := srv.Start()
	if err != nil {
		return fmt.Sprintf("the local server could not start on %s: %v — choose another address in Settings → Local server", want.Addr, err)
	}
	slog.Info("local server listening", "url", "http://"+addr+"/v1")
	l.srv, l.opts = srv, want
	return ""
}

func (l *localServer) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopLocked()
}

func (l *localServer) stopLocked() {
	if l.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.srv.Shutdown(ctx)
	l.srv = nil
}
