package inference

import (
	"context"

	"edgechat/reply"
)

// Load loads the model that answers first — the first route's, else the next one's when it
// cannot load — without generating, passing on the status lines the route reports while it
// loads ("Loading the model for the CPU…"). It returns once a model is ready (at once when it
// already is, or when the first route is a remote server), or the error of the last route
// that could not load; cancelling ctx stops the wait. The window calls it after a switch of
// model, so the first reply does not wait for the load.
func (e *Engine) Load(ctx context.Context, status func(string)) error {
	var err error
	for _, r := range e.routes {
		if r.cfg.Generator != nil {
			return nil
		}
		res := r.loadWithStatus(ctx, status)
		if res.routeErr == nil {
			return ctx.Err()
		}
		err = res.routeErr
	}
	return err
}

// loadWithStatus loads the route's model on its goroutine (at once done when it is loaded),
// passing on the status lines it reports while it loads (nil: none are asked for).
func (r *route) loadWithStatus(ctx context.Context, status func(string)) result {
	if status == nil {
		return r.submitJob(ctx, &job{load: true})
	}
	out := make(chan reply.Event, 8)
	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		for ev := range out {
			if ev.Kind == reply.EventStatus {
				status(ev.Text)
			}
		}
	}()
	res := r.submitJob(ctx, &job{out: out, load: true})
	close(out) // the route sends only while it serves the job, before the result
	<-relayed
	return res
}
