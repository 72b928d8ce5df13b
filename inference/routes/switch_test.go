package routes

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// loadingEngine is a fakeEngine that loads a model.
type loadingEngine struct{ fakeEngine }

func (f *loadingEngine) Load(ctx context.Context, status func(string)) error {
	f.log.add("load " + f.name)
	status("Loading " + f.name)
	return nil
}

// Load waits for the replaced engine to close, then loads the new one's model; an engine
// with nothing to load returns at once.
func TestSwitchLoad(t *testing.T) {
	log := &eventLog{}
	s := NewSwitch(&fakeEngine{name: "a", log: log, slow: 20 * time.Millisecond})
	s.Set(&loadingEngine{fakeEngine{name: "b", log: log}})
	var lines []string
	if err := s.Load(context.Background(), func(l string) { lines = append(lines, l) }); err != nil {
		t.Fatal(err)
	}
	s.Set(&fakeEngine{name: "c", log: log})
	if err := s.Load(context.Background(), nil); err != nil {
		t.Errorf("Load of an engine with nothing to load: %v", err)
	}
	s.Close()
	if diff := cmp.Diff([]string{"close a", "load b", "close b", "close c"}, log.ev); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Loading b"}, lines); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
}
