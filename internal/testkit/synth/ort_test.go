package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/env"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/proto"
)

// Helpers shared by the tests that run the synthetic models with ONNX Runtime.

var (
	cacheDir string
	cacheMu  sync.Mutex
	written  = map[string]string{}
)

func TestMain(m *testing.M) { os.Exit(testenv.RunInTempDir(m, "synth-test-", &cacheDir)) }

// modelDir writes the model for o once per test binary and returns its folder.
func modelDir(t testing.TB, o Options) string {
	t.Helper()
	cacheMu.Lock()
	defer cacheMu.Unlock()
	key := fmt.Sprintf("%+v", o)
	if d, ok := written[key]; ok {
		return d
	}
	d := filepath.Join(cacheDir, fmt.Sprint(len(written)))
	if err := Write(d, o); err != nil {
		t.Fatal(err)
	}
	written[key] = d
	return d
}

func initORT(t testing.TB) {
	t.Helper()
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
}

// session is an ONNX Runtime session over named inputs and outputs.
type session struct {
	s       *ort.DynamicAdvancedSession
	in, out []string
}

func openSession(t testing.TB, path string, in, out []string) *session {
	t.Helper()
	initORT(t)
	opts, err := ort.NewSessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(1); err != nil {
		t.Fatal(err)
	}
	s, err := ort.NewDynamicAdvancedSession(path, in, out, opts)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { s.Destroy() })
	return &session{s: s, in: in, out: out}
}

// run feeds inputs (in the session's input order) and fills the preallocated outputs.
func (s *session) run(t testing.TB, in, out []ort.Value) {
	t.Helper()
	if err := s.s.Run(in, out); err != nil {
		t.Fatalf("run: %v", err)
	}
}

func destroyLater[V interface{ Destroy() error }](t testing.TB, v V, err error) V {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Destroy() })
	return v
}

func i64Tensor(t testing.TB, shape []int64, data []int64) ort.Value {
	v, err := ort.NewTensor(ort.NewShape(shape...), data)
	return destroyLater(t, v, err)
}

func i32Tensor(t testing.TB, shape []int64, data []int32) ort.Value {
	v, err := ort.NewTensor(ort.NewShape(shape...), data)
	return destroyLater(t, v, err)
}

// floatTensor makes a float32 or float16 tensor holding data (zeros when data is nil).
func floatTensor(t testing.TB, shape []int64, fp16 bool, data []float32) ort.Value {
	t.Helper()
	n := ort.NewShape(shape...).FlattenedSize()
	if data == nil {
		data = make([]float32, n)
	}
	if int64(len(data)) != n {
		t.Fatalf("%d values for shape %v", len(data), shape)
	}
	if !fp16 {
		v, err := ort.NewTensor(ort.NewShape(shape...), data)
		return destroyLater(t, v, err)
	}
	raw := proto.Float16Bytes(data)
	if len(raw) == 0 {
		raw = []byte{0} // NewCustomDataTensor rejects empty slices
	}
	v, err := ort.NewCustomDataTensor(ort.NewShape(shape...), raw, ort.TensorElementDataTypeFloat16)
	return destroyLater(t, v, err)
}

// floats reads a float32 or float16 tensor as float32 values.
func floats(t testing.TB, v ort.Value) []float32 {
	t.Helper()
	switch x := v.(type) {
	case *ort.Tensor[float32]:
		return x.GetData()
	case *ort.CustomDataTensor:
		n := x.GetShape().FlattenedSize()
		return proto.FromFloat16Bytes(x.GetData())[:n]
	}
	t.Fatalf("unexpected value type %T", v)
	return nil
}

// maxDiff is max |a-b| over equal-length slices.
func maxDiff(t testing.TB, a, b []float32) float64 {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("lengths %d and %d differ", len(a), len(b))
	}
	m := 0.0
	for i := range a {
		d := float64(a[i] - b[i])
		if d < 0 {
			d = -d
		}
		if d != d {
			return d // NaN
		}
		m = max(m, d)
	}
	return m
}
