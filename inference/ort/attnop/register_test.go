//go:build cgo && (amd64 || arm64) && (linux || windows)

package attnop

import (
	"sync"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// TestRegisterConcurrently registers the domains on many options objects at once and opens a
// session on each: the domains are made once and shared, and every session finds the operator.
func TestRegisterConcurrently(t *testing.T) {
	initORT(t)
	ks, vs := scales(small)
	b, err := gqaModel(Domain, small, false, 64, ks, vs).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, err := ort.NewSessionOptions()
			if err != nil {
				errs[i] = err
				return
			}
			defer o.Destroy()
			if errs[i] = Register(o); errs[i] != nil {
				return
			}
			s, err := ort.NewDynamicAdvancedSessionWithONNXData(b, []string{"q", "k", "v", "past_key", "past_value",
				"seqlens_k", "total_sequence_length"}, []string{"out", "present_key", "present_value"}, o)
			if err != nil {
				errs[i] = err
				return
			}
			s.Destroy()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
	if err := Register(nil); err == nil {
		t.Error("Register(nil): no error")
	}
}
