package routes

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"edgechat/config"
	"edgechat/inference"
	"edgechat/inference/remote"
	"edgechat/reply"
)

func TestBuildOrder(t *testing.T) {
	npu := &Local{Model: "/m/npu", EP: "qnn"}
	cpu := &Local{Model: "/m/cpu", EP: "dml"} // the CPU route always runs on the CPU EP
	srv := &remote.Config{BaseURL: "http://127.0.0.1:1/v1"}
	tests := []struct {
		name string
		spec Spec
		want []string // route name/EP
	}{
		{"nothing configured", Spec{}, nil},
		{"npu then cpu", Spec{NPU: npu, CPU: cpu}, []string{"npu/qnn", "cpu/cpu"}},
		{"cpu only", Spec{CPU: cpu}, []string{"cpu/cpu"}},
		{"npu only", Spec{NPU: npu}, []string{"npu/qnn"}},
		{"remote for long prompts sits between", Spec{NPU: npu, CPU: cpu, Remote: srv, ForLongPrompts: true}, []string{"npu/qnn", "remote/", "cpu/cpu"}},
		{"remote unused beside local models", Spec{NPU: npu, CPU: cpu, Remote: srv}, []string{"npu/qnn", "cpu/cpu"}},
		{"remote alone", Spec{Remote: srv}, []string{"remote/"}},
		{"empty model folders are no route", Spec{NPU: &Local{EP: "qnn"}, CPU: &Local{}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range Build(tt.spec).Routes {
				got = append(got, r.Name+"/"+r.EP.Name)
				if (r.Name == "remote") != (r.Generator != nil) {
					t.Errorf("route %s: generator %v", r.Name, r.Generator)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("routes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildCarriesOptions(t *testing.T) {
	cfg := Build(Spec{ORTLibrary: "/lib/ort.so", PrefillLimit: 512, PowerMode: "saver", SaverHTPMode: "low_balanced",
		NPU: &Local{Model: "/n", ModelFile: "model_q4.onnx", EP: "qnn", EPOptions: map[string]string{"soc_model": "60"}, Threads: 3, MaxContext: 2048}})
	r := cfg.Routes[0]
	if cfg.Open == nil || r.PrefillLimit != 512 || r.Model != "/n" || r.ModelFile != "model_q4.onnx" ||
		r.EP.Options["soc_model"] != "60" || r.EP.Threads != 3 || r.MaxContext != 2048 {
		t.Errorf("route lost options: %+v", r)
	}
	if p := cfg.Power; p.Mode != "saver" || p.SaverHTPMode != "low_balanced" || p.Watch == nil {
		t.Errorf("power: %+v", p)
	}
}

// TestInt8SettingsReachRoutes: the 8-bit prompt setting reaches the CPU route's load options,
// never the NPU's (its providers have none); the KV cache setting reaches both (the 8-bit
// caches run on the CPU provider only, so an NPU route on an NPU keeps 32 bits whatever it
// says), each setting on its own; every stored KV cache value is one inference.ParseKVCache
// reads.
func TestInt8SettingsReachRoutes(t *testing.T) {
	want := map[string]inference.KVCache{config.KVCacheAuto: inference.KVAuto, config.KVCache32: inference.KV32, config.KVCache8: inference.KV8}
	if len(want) != len(config.KVCaches) {
		t.Fatalf("config.KVCaches %v, want a case for each", config.KVCaches)
	}
	for _, kv := range config.KVCaches {
		for _, prompt := range []bool{false, true} {
			s := config.Defaults()
			s.CPU.Model, s.NPU.Model, s.KVCache, s.PromptInt8 = "/models/cpu", "/models/npu", kv, prompt
			cfg := Build(FromSettings(s))
			if len(cfg.Routes) != 2 || cfg.Routes[0].KVCache != want[kv] || cfg.Routes[0].PromptInt8 ||
				cfg.Routes[1].KVCache != want[kv] || cfg.Routes[1].PromptInt8 != prompt {
				t.Errorf("kv %v prompt %v: routes %+v", kv, prompt, cfg.Routes)
			}
			if got := want[kv].String(); got != kv {
				t.Errorf("inference.KVCache %d names itself %q, want %q", want[kv], got, kv)
			}
		}
	}
}

func TestFromSettingsRebuildsOnlyForRoutes(t *testing.T) {
	base := config.Defaults()
	base.CPU.Model = "/models/qwen3"
	same := func(a, b config.Settings) bool { return cmp.Equal(FromSettings(a), FromSettings(b)) }
	tests := []struct {
		name    string
		change  func(*config.Settings)
		rebuild bool
	}{
		{"theme", func(s *config.Settings) { s.Theme = "dark" }, false},
		{"sampling", func(s *config.Settings) { s.Temperature, s.TopK = 0.1, 3 }, false},
		{"system prompt", func(s *config.Settings) { s.SystemPrompt = "Be brief." }, false},
		{"max tokens", func(s *config.Settings) { s.MaxTokens = 99 }, false},
		{"cpu model", func(s *config.Settings) { s.CPU.Model = "/models/other" }, true},
		{"npu model", func(s *config.Settings) { s.NPU.Model = "/models/npu" }, true},
		{"ep option", func(s *config.Settings) { s.CPU.EPOptions = map[string]string{"x": "1"} }, true},
		{"library", func(s *config.Settings) { s.ORTLibrary = "/other.so" }, true},
		{"remote", func(s *config.Settings) { s.Remote.BaseURL = "http://127.0.0.1:9/v1" }, true},
		{"power mode", func(s *config.Settings) { s.Power.Mode = "saver" }, true},
		{"battery saver's QNN mode", func(s *config.Settings) { s.Power.SaverHTPMode = "power_saver" }, true},
		{"8-bit KV cache", func(s *config.Settings) { s.KVCache = config.KVCache8 }, true},
		{"32-bit KV cache", func(s *config.Settings) { s.KVCache = config.KVCache32 }, true},
		{"8-bit prompts", func(s *config.Settings) { s.PromptInt8 = true }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := base
			next.CPU.EPOptions = map[string]string{}
			tt.change(&next)
			if got := !same(base, next); got != tt.rebuild {
				t.Errorf("rebuild = %v, want %v", got, tt.rebuild)
			}
		})
	}
}

// fakeEngine records when it closes and when it is asked for a reply.
type fakeEngine struct {
	name string
	log  *eventLog
	slow time.Duration
}

type eventLog struct {
	mu sync.Mutex
	ev []string
}

func (l *eventLog) add(s string) {
	l.mu.Lock()
	l.ev = append(l.ev, s)
	l.mu.Unlock()
}

func (f *fakeEngine) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	f.log.add("generate " + f.name)
	ch := make(chan reply.Event, 1)
	ch <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishStop, Backend: f.name}}
	close(ch)
	return ch, nil
}

func (f *fakeEngine) Close() error {
	time.Sleep(f.slow)
	f.log.add("close " + f.name)
	return nil
}

func TestSwitchClosesTheOldEngineBeforeTheNewServes(t *testing.T) {
	log := &eventLog{}
	s := NewSwitch(&fakeEngine{name: "a", log: log, slow: 50 * time.Millisecond})
	s.Set(&fakeEngine{name: "b", log: log, slow: 50 * time.Millisecond})
	s.Set(&fakeEngine{name: "c", log: log})
	c := reply.Collect(context.Background(), mustGenerate(t, s))
	if c.Summary.Backend != "c" {
		t.Errorf("served by %q, want c", c.Summary.Backend)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"close a", "close b", "generate c", "close c"}
	if diff := cmp.Diff(want, log.ev); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if _, err := s.Generate(context.Background(), reply.Request{}); !errors.Is(err, errClosed) {
		t.Errorf("after Close: %v, want errClosed", err)
	}
}

func TestSwitchWaitHonoursContext(t *testing.T) {
	log := &eventLog{}
	s := NewSwitch(&fakeEngine{name: "a", log: log, slow: time.Second})
	s.Set(&fakeEngine{name: "b", log: log})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Generate(ctx, reply.Request{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Generate while the old engine closes with a done ctx: %v", err)
	}
	s.Close()
}

func mustGenerate(t *testing.T, g Generator) <-chan reply.Event {
	t.Helper()
	ch, err := g.Generate(context.Background(), reply.Request{})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}
