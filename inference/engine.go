package inference

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ortenv"
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
	Generate(ctx context.Context, req Request) (<-chan Event, error)
}

// Config configures an Engine.
type Config struct {
	// ORTLibrary is the ONNX Runtime library setting ("" = search; see ortenv.Locate).
	ORTLibrary string
	// Routes in order of preference. A request goes to the first route that can take it and
	// falls back to the next when a route cannot load or fails.
	Routes []RouteConfig
	// Preload loads every route's model at start instead of on first use.
	Preload bool
}

// Engine serves chat requests from one or more routes. It is safe for concurrent use;
// each route serves one request at a time, in order of arrival.
type Engine struct {
	routes []*route
	wg     sync.WaitGroup
	closed chan struct{}
	once   sync.Once
}

// New starts an engine. Models load lazily on first use (or now, with Preload).
func New(cfg Config) (*Engine, error) {
	if len(cfg.Routes) == 0 {
		return nil, errors.New("no model configured: choose a model folder in Settings")
	}
	e := &Engine{closed: make(chan struct{})}
	for _, rc := range cfg.Routes {
		r := &route{cfg: rc, ortLib: cfg.ORTLibrary, jobs: make(chan *job)}
		e.routes = append(e.routes, r)
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			r.loop(e.closed)
		}()
	}
	if cfg.Preload {
		for _, r := range e.routes {
			go r.preload(e.closed)
		}
	}
	return e, nil
}

// Generate streams a reply to req. The returned channel yields text, thinking, notice and
// status events and ends with one EventDone; it is closed after that. Cancelling ctx stops
// the reply within one decode step (a long prefill is interrupted).
func (e *Engine) Generate(ctx context.Context, req Request) (<-chan Event, error) {
	select {
	case <-e.closed:
		return nil, errors.New("the engine is closed")
	default:
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("the conversation is empty")
	}
	out := make(chan Event, 64)
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer close(out)
		sum := e.dispatch(ctx, req, out)
		if sum.Err != nil && sum.Error == "" {
			sum.Error = sum.Err.Error()
		}
		sendFinal(ctx, out, Event{Kind: EventDone, Done: sum})
	}()
	return out, nil
}

// dispatch tries the routes in order until one serves the request.
func (e *Engine) dispatch(ctx context.Context, req Request, out chan<- Event) *Summary {
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
				sum = &Summary{FinishReason: FinishError, Err: res.routeErr, Backend: r.cfg.Name}
			}
			if len(reasons) > 0 {
				sum.FallbackReason = joinReasons(reasons)
			}
			sum.RouteReason = routeReason
			return sum
		}
		reasons = append(reasons, res.routeErr.Error())
		if !emit(ctx, out, Event{Kind: EventNotice, Text: fmt.Sprintf("The %s route is unavailable (%v); using %s", r.cfg.Name, res.routeErr, e.routes[i+1].cfg.Name)}) {
			return &Summary{FinishReason: FinishCancelled}
		}
	}
	return &Summary{FinishReason: FinishError, Err: errors.New("no route")}
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
	e.once.Do(func() { close(e.closed) })
	e.wg.Wait()
	return nil
}

// settle waits until no route is warming up a next turn (tests and benchmarks use it to
// stand in for the time a person takes to read and type).
func (e *Engine) settle() {
	for _, r := range e.routes {
		for r.warming.Load() {
			time.Sleep(time.Millisecond)
		}
	}
}

// emit sends ev unless ctx is done.
func emit(ctx context.Context, out chan<- Event, ev Event) bool {
	select {
	case out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// sendFinal delivers the last event: a consumer that cancelled usually still drains the
// channel to see how the reply ended, so wait briefly for room before giving up.
func sendFinal(ctx context.Context, out chan<- Event, ev Event) {
	if ctx.Err() == nil {
		select {
		case out <- ev:
			return
		case <-ctx.Done():
		}
	}
	select {
	case out <- ev:
	case <-time.After(time.Second):
	}
}

// route owns one model: a goroutine loads it and serves requests one by one.
type route struct {
	cfg    RouteConfig
	ortLib string
	jobs   chan *job

	mu      sync.Mutex
	loadErr error // a route that failed to load is not retried until the engine is rebuilt
	model   *Model
	run     *ort.RunOptions // terminates the run in flight on cancel; owned by loop
	loads   int             // load attempts (tests check that a failed route backs off)
	owner   string          // conversation whose tokens the decoder's cache holds
	pending atomic.Int32    // requests waiting for the route: they stop a warm-up
	warming atomic.Bool     // the route is prefilling the next turn's history
	states  *stateCache     // caches of other recent conversations
}

type job struct {
	ctx    context.Context
	req    Request
	out    chan<- Event
	result chan result
	// hasNext is set when a later route can take the request if this one declines it.
	hasNext bool
}

type result struct {
	sum      *Summary
	routeErr error  // the route could not serve: try the next one
	skip     string // the route declined the request (prompt too long): try the next one
}

// submit queues a request on the route and waits for its result.
func (r *route) submit(ctx context.Context, req Request, out chan<- Event, hasNext bool) result {
	if err := r.failed(); err != nil {
		return result{routeErr: err}
	}
	j := &job{ctx: ctx, req: req, out: out, result: make(chan result, 1), hasNext: hasNext}
	r.pending.Add(1)
	select {
	case r.jobs <- j:
	case <-ctx.Done():
		r.pending.Add(-1)
		return result{sum: &Summary{FinishReason: FinishCancelled, Backend: r.cfg.Name}}
	}
	return <-j.result
}

func (r *route) failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loadErr
}

func (r *route) loop(closed <-chan struct{}) {
	defer func() {
		if r.model != nil {
			r.model.Close()
		}
	}()
	for {
		select {
		case <-closed:
			if r.run != nil {
				r.run.Destroy()
			}
			return
		case j := <-r.jobs:
			r.pending.Add(-1)
			j.result <- r.serve(j)
			if r.model != nil {
				r.warming.Store(true)
				r.model.warmNextTurn(r.run, func() bool { return r.pending.Load() > 0 })
				r.warming.Store(false)
			}
		}
	}
}

func (r *route) preload(closed <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	_ = r.submitLoad(ctx)
}

// submitLoad asks the route's goroutine to load its model without generating.
func (r *route) submitLoad(ctx context.Context) error {
	res := r.submit(ctx, Request{}, nil, false)
	return res.routeErr
}

// ensureLoaded loads the model on the route's goroutine.
func (r *route) ensureLoaded(j *job) error {
	if r.model != nil {
		return nil
	}
	if j.out != nil && !emit(j.ctx, j.out, Event{Kind: EventStatus, Text: fmt.Sprintf("Loading model for the %s route…", r.cfg.Name)}) {
		return j.ctx.Err()
	}
	r.loads++
	if _, err := ortenv.Init(r.ortLib); err != nil {
		r.setFailed(err)
		return err
	}
	run, err := ort.NewRunOptions()
	if err != nil {
		return err
	}
	m, err := LoadModel(r.cfg.Model, r.cfg.LoadOptions)
	if err != nil {
		run.Destroy()
		r.setFailed(err)
		return err
	}
	r.model, r.run = m, run
	budget := r.cfg.StateBudget
	if budget == 0 {
		budget = DefaultStateBudget()
	}
	r.states = newStateCache(max(budget, 0))
	for _, n := range m.Notes {
		if j.out != nil {
			emit(j.ctx, j.out, Event{Kind: EventNotice, Text: n})
		}
	}
	return nil
}

func (r *route) setFailed(err error) {
	r.mu.Lock()
	r.loadErr = err
	r.mu.Unlock()
}

// serve runs one job on the route's goroutine.
func (r *route) serve(j *job) result {
	if r.cfg.Generator != nil {
		return r.serveGenerator(j)
	}
	if err := r.ensureLoaded(j); err != nil {
		if j.ctx.Err() != nil {
			return result{sum: &Summary{FinishReason: FinishCancelled, Backend: r.cfg.Name}}
		}
		return result{routeErr: err}
	}
	if j.out == nil { // preload only
		return result{sum: &Summary{}}
	}
	if j.hasNext {
		if reason := r.declines(j.req); reason != "" {
			return result{skip: reason}
		}
	}
	r.switchConversation(j.req.ConversationID)
	if r.cfg.NoReuse {
		r.model.dec.Truncate(0)
	}
	run := r.run
	stop := context.AfterFunc(j.ctx, func() { run.Terminate() })
	defer func() {
		stop()
		run.UnsetTerminate()
	}()
	emitted := 0
	sum := r.model.generate(j.ctx, j.req, run, func(ev Event) bool {
		if ev.Kind == EventText || ev.Kind == EventThinking {
			emitted++
		}
		return emit(j.ctx, j.out, ev)
	})
	sum.Backend, sum.Device = r.cfg.Name, r.model.EP.Label()
	if sum.FinishReason == FinishError && j.hasNext && emitted == 0 && !errors.Is(sum.Err, errPromptTooLong) {
		// The route broke before saying anything: let the next route answer, and do not
		// come back here until the engine is rebuilt.
		err := fmt.Errorf("%s failed: %w", r.cfg.Name, sum.Err)
		r.setFailed(err)
		return result{routeErr: err}
	}
	return result{sum: sum}
}

// serveGenerator relays a reply from the route's Generator. A failure before any output lets
// the next route answer; unlike a local model, the route is tried again next time (a server
// that was down may be back).
func (r *route) serveGenerator(j *job) result {
	if j.out == nil {
		return result{sum: &Summary{}}
	}
	ch, err := r.cfg.Generator.Generate(j.ctx, j.req)
	if err != nil {
		return result{routeErr: err}
	}
	emitted := 0
	var sum *Summary
	for ev := range ch {
		switch ev.Kind {
		case EventDone:
			sum = ev.Done
			continue
		case EventText, EventThinking:
			emitted++
		}
		emit(j.ctx, j.out, ev)
	}
	if sum == nil {
		sum = &Summary{FinishReason: FinishError, Err: errors.New("the reply ended without a summary")}
	}
	if sum.Backend == "" {
		sum.Backend = r.cfg.Name
	}
	if sum.FinishReason == FinishError && emitted == 0 && j.hasNext && j.ctx.Err() == nil {
		return result{routeErr: fmt.Errorf("%s failed: %w", r.cfg.Name, sum.Err)}
	}
	return result{sum: sum}
}

// switchConversation saves the cache of the conversation it holds and brings back the
// requested conversation's cache, if kept. Without one, the current cache stays: a shared
// prefix (the same system prompt) is still reused.
func (r *route) switchConversation(id string) {
	if id == r.owner {
		return
	}
	if snap, ok := r.model.dec.(snapshotter); ok {
		if r.owner != "" && len(r.model.dec.Cached()) > 0 {
			st, size := snap.Snapshot()
			r.states.put(r.owner, st, size)
		}
		if st, found := r.states.take(id); found {
			snap.Restore(st)
		}
	}
	r.owner = id
}

// declines says why this route should not take req (its prompt is over the prefill limit),
// or "" to take it.
func (r *route) declines(req Request) string {
	ids, err := r.model.PromptIDs(req.Messages, req.Thinking)
	if err != nil {
		return ""
	}
	limit := r.cfg.PrefillLimit
	if limit <= 0 {
		limit = r.model.ContextLength() - replyReserve(req.MaxTokens, r.model.ContextLength())
	}
	if len(ids) > limit {
		return fmt.Sprintf("the prompt of %d tokens is over the %s route's prefill limit of %d", len(ids), r.cfg.Name, limit)
	}
	return ""
}
