package routes

import (
	"context"
	"errors"
	"io"
	"sync"

	"edgechat/reply"
)

// Generator streams replies (the engine, or a stand-in when nothing is configured).
type Generator interface {
	Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error)
}

// Switch is the engine the window and the local server hold while saved settings may replace
// what is behind it. The engine it replaces is closed — its reply in flight cancelled, its
// models released — before the new one serves, so two models are never loaded at once.
// It is safe for concurrent use.
type Switch struct {
	mu sync.Mutex
	g  Generator
	// ready is closed once the engines replaced so far are closed.
	ready chan struct{}
}

var errClosed = errors.New("EdgeChat is closing")

// NewSwitch starts with g.
func NewSwitch(g Generator) *Switch {
	ready := make(chan struct{})
	close(ready)
	return &Switch{g: g, ready: ready}
}

// Set puts g in place and closes the previous engine in the background; replies asked for
// from now on wait for that close.
func (s *Switch) Set(g Generator) {
	s.mu.Lock()
	old, prev := s.g, s.ready
	ready := make(chan struct{})
	s.g, s.ready = g, ready
	s.mu.Unlock()
	go func() {
		<-prev
		closeGenerator(old, g)
		close(ready)
	}()
}

// Generate streams a reply from the current engine, once the one it replaced has closed.
func (s *Switch) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	s.mu.Lock()
	g, ready := s.g, s.ready
	s.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if g == nil {
		return nil, errClosed
	}
	return g.Generate(ctx, req)
}

// Current is the engine replies go to now (nil after Close).
func (s *Switch) Current() Generator {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.g
}

// Close closes the current engine and waits for every close: the app is quitting.
func (s *Switch) Close() error {
	s.mu.Lock()
	g, ready := s.g, s.ready
	s.g = nil
	s.mu.Unlock()
	<-ready
	closeGenerator(g, nil)
	return nil
}

func closeGenerator(old, next Generator) {
	if c, ok := old.(io.Closer); ok && old != next {
		_ = c.Close()
	}
}

// loader is an engine that can load its model ahead of the first reply (inference.Engine).
type loader interface {
	Load(ctx context.Context, status func(string)) error
}

// Load loads the current engine's model, once the engine it replaced has closed (so two
// models are never loaded at once), reporting the engine's status lines. An engine with
// nothing to load (no model set, a stand-in) returns nil at once.
func (s *Switch) Load(ctx context.Context, status func(string)) error {
	s.mu.Lock()
	g, ready := s.g, s.ready
	s.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	if g == nil {
		return errClosed
	}
	if l, ok := g.(loader); ok {
		return l.Load(ctx, status)
	}
	return nil
}
