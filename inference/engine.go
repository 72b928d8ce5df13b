package inference

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"edgechat/internal/host"
	"edgechat/reply"
)

// RouteConfig is one way to serve a request: a model on an execution provider.
type RouteConfig struct {
	// Name is the backend shown to the user: "npu", "cpu".
	Name  string
	Model string
	LoadOptions
	// PrefillLimit is the longest prompt (in tokens) this route takes while a later route
	// exists; longer prompts go to the next route. 0 derives it from the model: its context
	// minus the reply budget. The last route takes every prompt (trimming old turns if needed).
	PrefillLimit int
	// Generator, when set, serves the route instead of a local model: a remote
	// OpenAI-compatible server (package remote) streams the same events.
	Generator Generator
	// NoReuse prefills every prompt from scratch (for measurements and debugging).
	NoReuse bool
	// StateBudget bounds the memory (bytes) of saved KV caches of other conversations
	// (0 = DefaultStateBudget; negative keeps none).
	StateBudget int64
}

// Generator is anything that streams replies like the engine does.
type Generator interface {
	Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error)
}

// Config configures an Engine.
type Config struct {
	// Open opens a local route's decoder (decoder.Opener(library) for ONNX Runtime; tests
	// use a fake). Routes with a Generator do not need it.
	Open OpenFunc
	// Routes in order of preference. A request goes to the first route that can take it and
	// falls back to the next when a route cannot load or fails.
	Routes []RouteConfig
	// Preload loads every route's model at start instead of on first use.
	Preload bool
	// PreloadStatus, when set, hears what a route reports while Preload loads its model
	// ("Preparing this model for your PC: 45%"), from the route's goroutine.
	PreloadStatus func(route, text string)
	// OneShot is for callers that send one request and close (the generate command): no
	// route prefills a next turn that will never come.
	OneShot bool
	// Power says how local routes follow the machine's power (battery saver, full speed).
	Power PowerConfig
}

// Engine serves chat requests from one or more routes. It is safe for concurrent use;
// each route serves one request at a time, in order of arrival.
type Engine struct {
	routes []*route
	wg     sync.WaitGroup
	closed chan struct{}
	once   sync.Once
	// stopWatch ends the power watch.
	stopWatch context.CancelFunc
}

// New starts an engine. Models load lazily on first use (or now, with Preload).
func New(cfg Config) (*Engine, error) {
	if len(cfg.Routes) == 0 {
		return nil, errors.New("no model configured: choose a model folder in Settings")
	}
	e := &Engine{closed: make(chan struct{}), stopWatch: func() {}}
	for _, rc := range cfg.Routes {
		r := &route{cfg: rc, open: cfg.Open, jobs: make(chan *job), warm: !cfg.OneShot && !rc.NoReuse,
			power: cfg.Power, powerNudge: make(chan struct{}, 1)}
		e.routes = append(e.routes, r)
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			r.loop(e.closed)
		}()
	}
	if cfg.Power.Watch != nil {
		ctx, cancel := context.WithCancel(context.Background())
		e.stopWatch = cancel
		cfg.Power.Watch(ctx, func(host.Power) {
			for _, r := range e.routes {
				r.nudgePower()
			}
		})
	}
	if cfg.Preload {
		for _, r := range e.routes {
			go r.preload(e.closed, cfg.PreloadStatus)
		}
	}
	return e, nil
}

// Generate streams a reply to req. The returned channel yields text, thinking, notice and
// status events and ends with one reply.EventDone; it is closed after that. Cancelling ctx stops
// the reply within one decode step (a long prefill is interrupted).
func (e *Engine) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	select {
	case <-e.closed:
		return nil, errors.New("the engine is closed")
	default:
	}
	switch {
	case req.Prompt != nil && len(req.Messages) > 0:
		return nil, errors.New("give messages or a raw prompt, not both")
	case req.Prompt == nil && len(req.Messages) == 0:
		return nil, errors.New("the conversation is empty")
	}
	out := make(chan reply.Event, 64)
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer close(out)
		sum := e.dispatch(ctx, req, out)
		reply.SendFinal(ctx, out, reply.Event{Kind: reply.EventDone, Done: sum})
	}()
	return out, nil
}

// dispatch tries the routes in order until one serves the request.
func (e *Engine) dispatch(ctx context.Context, req reply.Request, out chan<- reply.Event) *reply.Summary {
	var reasons []string
	routeReason := ""
	for i, r := range e.routes {
		last := i == len(e.routes)-1
		res := r.submit(ctx, req, out, !last)
		if res.skip != "" {
			routeReason = res.skip
			continue
		}
		if res.routeErr == nil || last {
			sum := res.sum
			if res.routeErr != nil {
				sum = &reply.Summary{FinishReason: reply.FinishError, Err: res.routeErr, Backend: r.cfg.Name}
			}
			if len(reasons) > 0 {
				sum.FallbackReason = joinReasons(reasons)
			}
			sum.RouteReason = routeReason
			return sum
		}
		reasons = append(reasons, res.routeErr.Error())
		if !reply.Emit(ctx, out, reply.Event{Kind: reply.EventNotice, Text: fmt.Sprintf("The %s is unavailable (%v); using the %s", deviceName(r.cfg.Name), res.routeErr, deviceName(e.routes[i+1].cfg.Name))}) {
			return &reply.Summary{FinishReason: reply.FinishCancelled}
		}
	}
	return &reply.Summary{FinishReason: reply.FinishError, Err: errors.New("no model is set up: choose one in Settings")}
}

func joinReasons(rs []string) string {
	s := "fallback: "
	for i, r := range rs {
		if i > 0 {
			s += "; "
		}
		s += r
	}
	return s
}

// Close stops the routes and releases their models. Requests in flight are cancelled.
func (e *Engine) Close() error {
	e.once.Do(func() {
		e.stopWatch()
		close(e.closed)
	})
	e.wg.Wait()
	return nil
}

// Settle waits until no route is warming up a next turn. Benchmarks and tests call it to
// stand in for the time a person takes to read and type.
func (e *Engine) Settle() {
	for _, r := range e.routes {
		for r.warming.Load() {
			time.Sleep(time.Millisecond)
		}
	}
}
