// Package enginetest holds what tests of reply streams share: fake engines for what consumes
// them (the server, the remote client), a Generator whose behaviour is a function, and the
// requests and stream checks the engine's tests use.
package enginetest

import (
	"context"

	"edgechat/reply"
)

// Func is a Generator whose behaviour is the function itself.
type Func func(ctx context.Context, req reply.Request) (<-chan reply.Event, error)

// Generate calls f.
func (f Func) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	return f(ctx, req)
}

// Scripted returns a generator that sends events in order, each send honouring ctx, and
// reports every request it gets on reqs when reqs is not nil.
func Scripted(reqs chan<- reply.Request, events ...reply.Event) Func {
	return func(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
		if reqs != nil {
			reqs <- req
		}
		out := make(chan reply.Event)
		go func() {
			defer close(out)
			for _, ev := range events {
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			}
		}()
		return out, nil
	}
}
