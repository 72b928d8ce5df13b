package inference

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"edgechat/models"
	"edgechat/reply"
)

// route owns one model: a goroutine loads it and serves requests one by one.
type route struct {
	cfg  RouteConfig
	open OpenFunc
	jobs chan *job
	warm bool // prefill the next turn's history after each reply
	// power says how the route follows the machine's power; mode is the one its model runs
	// in, refused is set when switching out of it failed, and powerNudge says the power
	// changed.
	power      PowerConfig
	mode       powerMode
	refused    bool
	powerNudge chan struct{}

	mu      sync.Mutex
	loadErr error // a route that failed to load is not retried until the engine is rebuilt
	model   *Model
	loads   int          // load attempts (tests check that a failed route backs off)
	owner   string       // conversation whose tokens the decoder's cache holds
	pending atomic.Int32 // requests waiting for the route: they stop a warm-up
	warming atomic.Bool  // the route is prefilling the next turn's history
	states  *stateCache  // caches of other recent conversations
	noted   bool         // the model's notes went out with a chat reply
}

type job struct {
	ctx    context.Context
	req    reply.Request
	out    chan<- reply.Event
	result chan result
	// hasNext is set when a later route can take the request if this one declines it.
	hasNext bool
	// test asks the route to load and describe its model instead of replying.
	test bool
	// load asks the route to load its model, reporting status on out, and not to reply.
	load bool
}

type result struct {
	sum      *reply.Summary
	routeErr error  // the route could not serve: try the next one
	skip     string // the route declined the request (prompt too long): try the next one
	test     *RouteReport
}

// submit queues a request on the route and waits for its result.
func (r *route) submit(ctx context.Context, req reply.Request, out chan<- reply.Event, hasNext bool) result {
	return r.submitJob(ctx, &job{req: req, out: out, hasNext: hasNext})
}

// submitJob queues a job on the route and waits for its result.
func (r *route) submitJob(ctx context.Context, j *job) result {
	if err := r.failed(); err != nil {
		return result{routeErr: err}
	}
	j.ctx, j.result = ctx, make(chan result, 1)
	r.pending.Add(1)
	select {
	case r.jobs <- j:
	case <-ctx.Done():
		r.pending.Add(-1)
		return result{sum: &reply.Summary{FinishReason: reply.FinishCancelled, Backend: r.cfg.Name}}
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
			return
		case <-r.powerNudge:
			r.warming.Store(true)          // Settle waits for the switch and its prefill
			_ = r.followPower(nil, closed) // a failure is the next request's to report
			r.warming.Store(false)
		case j := <-r.jobs:
			r.pending.Add(-1)
			ctx, cancel := whileOpen(j.ctx, closed) // closing the engine stops the reply in flight
			j.ctx = ctx
			res := r.serve(j)
			// Marked before the reply's end is delivered, so that whoever saw the end and
			// then settles waits for the warm-up.
			warm := r.model != nil && r.warm
			r.warming.Store(warm)
			j.result <- res
			cancel()
			if warm {
				r.warmUp(closed)
			}
		}
	}
}

// warmUp prefills the next turn's history until it is done, a request arrives or the engine
// closes (which also stops a run in flight).
func (r *route) warmUp(closed <-chan struct{}) {
	defer r.warming.Store(false)
	ctx, cancel := whileOpen(context.Background(), closed)
	defer cancel()
	r.model.warmNextTurn(ctx, func() bool { return r.pending.Load() > 0 })
}

// preload loads the route's model, passing on to status (nil: nowhere) what it reports
// while it loads.
func (r *route) preload(closed <-chan struct{}, status func(route, text string)) {
	ctx, cancel := whileOpen(context.Background(), closed)
	defer cancel()
	var relay func(string)
	if status != nil {
		relay = func(text string) { status(r.cfg.Name, text) }
	}
	r.loadWithStatus(ctx, relay)
}

// whileOpen derives a context from parent that is also cancelled when the engine closes.
func whileOpen(parent context.Context, closed <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		select {
		case <-closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// ensureLoaded loads the model on the route's goroutine.
func (r *route) ensureLoaded(j *job) error {
	if r.model != nil {
		return nil
	}
	loading := fmt.Sprintf("Loading the model for the %s…", deviceName(r.cfg.Name))
	if j.out != nil && !reply.Emit(j.ctx, j.out, reply.Event{Kind: reply.EventStatus, Text: loading}) {
		return j.ctx.Err()
	}
	r.loads++
	o := r.power.apply(r.cfg.LoadOptions, r.mode.saver)
	if j.out != nil {
		// The first load of a model prepares its optimized copy: say how far it has gone
		// ("Preparing this model for your PC: 45%"), then loading again.
		// Only what a person can see change is sent: the preparation reports finer steps
		// than whole percents.
		said := loading
		o.Progress = func(p reply.Progress) {
			if text := p.Label(loading); text != said {
				said = text
				reply.Emit(j.ctx, j.out, reply.Event{Kind: reply.EventStatus, Text: text, Progress: &p})
			}
		}
	}
	m, err := LoadModel(r.cfg.Model, o, r.open)
	if err != nil {
		r.setFailed(err)
		return err
	}
	r.model = m
	budget := r.cfg.StateBudget
	if budget == 0 {
		budget = DefaultStateBudget()
	}
	r.states = newStateCache(max(budget, 0))
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
	t := time.Now()
	loaded := r.model == nil
	if err := r.followPower(j, nil); err != nil {
		return result{routeErr: err}
	}
	if err := r.ensureLoaded(j); err != nil {
		if j.ctx.Err() != nil {
			return result{sum: &reply.Summary{FinishReason: reply.FinishCancelled, Backend: r.cfg.Name}}
		}
		return result{routeErr: err}
	}
	if j.test {
		if j.ctx.Err() != nil {
			return result{}
		}
		var d time.Duration
		if loaded {
			d = time.Since(t)
		}
		return r.test(d)
	}
	if j.out == nil || j.load { // preload only
		return result{sum: &reply.Summary{}}
	}
	conv := r.model.request(j.ctx, j.req)
	if j.hasNext {
		if reason := r.declines(conv, j.req); reason != "" {
			return result{skip: reason}
		}
	}
	if j.req.Prompt == nil && !r.noted { // the notes are about chat (the template)
		r.noted = true
		for _, n := range r.model.Notes {
			reply.Emit(j.ctx, j.out, reply.Event{Kind: reply.EventNotice, Text: n})
		}
	}
	r.switchConversation(j.req.ConversationID)
	if r.cfg.NoReuse {
		r.model.dec.Truncate(0)
	}
	emitted := 0
	sum := r.model.generate(j.ctx, conv, j.req, func(ev reply.Event) bool {
		if ev.Kind == reply.EventText || ev.Kind == reply.EventThinking {
			emitted++
		}
		return reply.Emit(j.ctx, j.out, ev)
	})
	sum.Backend, sum.Device, sum.Power = r.cfg.Name, r.model.EP.Label(), r.mode.info(r.model.EP)
	sum.Model = models.DisplayName(r.cfg.Model)
	if sum.FinishReason == reply.FinishError && j.hasNext && emitted == 0 && !reply.RequestFault(sum.Err) {
		// The route broke before saying anything: let the next route answer, and do not
		// come back here until the engine is rebuilt. A request it refused (a prompt over
		// its context, a token id outside its vocabulary) has not broken it.
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
		return result{sum: &reply.Summary{}}
	}
	ch, err := r.cfg.Generator.Generate(j.ctx, j.req)
	if err != nil {
		return result{routeErr: err}
	}
	emitted := 0
	var sum *reply.Summary
	for ev := range ch {
		switch ev.Kind {
		case reply.EventDone:
			sum = ev.Done
			continue
		case reply.EventText, reply.EventThinking:
			emitted++
		}
		reply.Emit(j.ctx, j.out, ev)
	}
	sum = reply.Ended(j.ctx, sum)
	if sum.Backend == "" {
		sum.Backend = r.cfg.Name
	}
	if sum.Model == "" {
		sum.Model = models.DisplayName(r.cfg.Model)
	}
	if sum.FinishReason == reply.FinishError && emitted == 0 && j.hasNext && j.ctx.Err() == nil {
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
	if snap, ok := r.model.dec.(Snapshotter); ok {
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

// declines says why this route should not take the conversation (its whole prompt is over
// the prefill limit, or a strict reply budget over its context), or "" to take it.
func (r *route) declines(conv *conversation, req reply.Request) string {
	if _, err := r.model.replyBudget(req); err != nil { // a later route may hold more
		return fmt.Sprintf("the %s cannot take it: %v", deviceName(r.cfg.Name), err)
	}
	maxTokens := req.MaxTokens
	p, err := conv.all()
	if err != nil {
		return ""
	}
	limit := r.cfg.PrefillLimit
	if limit <= 0 {
		limit = r.model.ContextLength() - replyReserve(maxTokens, r.model.ContextLength())
	}
	if len(p.ids) > limit {
		return fmt.Sprintf("the prompt of %d tokens is over the %s's prefill limit of %d", len(p.ids), deviceName(r.cfg.Name), limit)
	}
	return ""
}

// deviceName is how messages a person reads name a route: "NPU", "CPU", "remote server".
func deviceName(route string) string {
	switch route {
	case "npu", "cpu":
		return strings.ToUpper(route)
	case "remote":
		return "remote server"
	}
	return route
}
