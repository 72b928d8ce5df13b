package inference

import (
	"context"
	"fmt"
	"time"

	"edgechat/models"
)

// RouteReport is what a route says about its model when asked to test it (Settings → Test).
type RouteReport struct {
	Route string
	// Load is how long loading took; 0 when the model was already loaded.
	Load time.Duration
	// Device is the execution provider's label ("CPU", "QNN").
	Device string
	// Runtime names the runtime and its version ("ONNX Runtime 1.22.0"), when the decoder
	// says.
	Runtime string
	// Model describes the model's files (layout, graphs, KV cache, quantization, notes).
	Model *models.Report
}

// Runtimer is a Decoder that names the runtime it runs on.
type Runtimer interface {
	Runtime() string
}

// TestRoute asks the named route's goroutine to load its model, if it has not yet, and to
// describe it: the model the route will serve with, loaded once, by its owner. ctx bounds the
// wait for the route (a reply in progress finishes first) and is checked again after loading.
func (e *Engine) TestRoute(ctx context.Context, name string) (*RouteReport, error) {
	for _, r := range e.routes {
		if r.cfg.Name != name {
			continue
		}
		if r.cfg.Generator != nil {
			return nil, fmt.Errorf("the %s setting names a remote server, not a local model", deviceName(name))
		}
		res := r.submitJob(ctx, &job{test: true})
		if res.routeErr != nil {
			return nil, res.routeErr
		}
		if res.test == nil {
			return nil, ctx.Err()
		}
		return res.test, nil
	}
	return nil, fmt.Errorf("no route named %q", name)
}

// test loads (ensureLoaded has done it) and describes the route's model, on its goroutine.
func (r *route) test(loaded time.Duration) result {
	rep, err := models.Inspect(r.cfg.Model, r.cfg.ModelFile)
	if err != nil {
		return result{routeErr: err}
	}
	out := &RouteReport{Route: r.cfg.Name, Load: loaded, Device: r.model.EP.Label(), Model: rep}
	if rt, ok := r.model.dec.(Runtimer); ok {
		out.Runtime = rt.Runtime()
	}
	return result{test: out}
}
