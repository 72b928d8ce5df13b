package decoder

import (
	"context"
	"fmt"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// floatSession is an ONNX Runtime session with one float32 output, run in turns: what every
// embedding and reranking model shares. A closed session refuses runs.
type floatSession struct {
	mu      sync.Mutex
	session *ort.DynamicAdvancedSession
	run     *runner
	output  string // the output's name, for messages
}

// runFloat runs the session on inputs and calls use with its output's data and shape, which
// are valid only during the call. ctx stops the run in flight.
func (s *floatSession) runFloat(ctx context.Context, inputs []ort.Value, use func(data []float32, dims []int64)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == nil {
		return fmt.Errorf("the model is closed")
	}
	outputs := []ort.Value{nil}
	end := s.run.watch(ctx)
	err := s.run.err(ctx, s.session.RunWithOptions(inputs, outputs, s.run.opts))
	end()
	defer destroyAll(outputs)
	if err != nil {
		return err
	}
	t, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return fmt.Errorf("the model's %s is not float32", s.output)
	}
	use(t.GetData(), t.GetShape())
	return nil
}

// close releases the session; later runs fail.
func (s *floatSession) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == nil {
		return nil
	}
	s.run.close()
	err := destroySession(s.session)
	s.session = nil
	return err
}

// idsTensor is a batch's input_ids tensor, int32 where the graph takes int32.
func idsTensor(shape ort.Shape, ids []int64, as32 bool) (ort.Value, error) {
	if !as32 {
		return ort.NewTensor(shape, ids)
	}
	ids32 := make([]int32, len(ids))
	for i, v := range ids {
		ids32[i] = int32(v)
	}
	return ort.NewTensor(shape, ids32)
}
