package decoder

import (
	"context"
	"fmt"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/env"
)

// runner is what every decoder keeps for its runs: ONNX Runtime run options, which a
// cancelled context terminates.
type runner struct {
	opts *ort.RunOptions
}

func newRunner() (*runner, error) {
	o, err := ort.NewRunOptions()
	if err != nil {
		return nil, fmt.Errorf("create run options: %w", err)
	}
	return &runner{opts: o}, nil
}

// watch makes cancelling ctx terminate the runs in flight until the returned function is
// called; that function waits for a termination already under way and clears it, so the next
// call's runs start afresh.
func (r *runner) watch(ctx context.Context) (end func()) {
	if ctx.Done() == nil {
		return func() {}
	}
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		r.opts.Terminate()
		close(done)
	})
	return func() {
		if !stop() {
			<-done
			r.opts.UnsetTerminate()
		}
	}
}

// err is a run's error; a run stopped because ctx was cancelled reports ctx's error.
func (r *runner) err(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func (r *runner) close() {
	if r != nil && r.opts != nil {
		r.opts.Destroy()
		r.opts = nil
	}
}

// Runtime names the runtime decoders run on, with its version.
func runtimeName() string {
	if info, ok := env.Loaded(); ok {
		return "ONNX Runtime " + info.Version
	}
	return "ONNX Runtime"
}
