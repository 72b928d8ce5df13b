package inference

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/eps"
	"edgechat/internal/host"
	"edgechat/models"
	"edgechat/reply"
)

// fakePower is a power source a test flips between states.
type fakePower struct{ p atomic.Pointer[host.Power] }

func newFakePower(p host.Power) *fakePower {
	f := &fakePower{}
	f.set(p)
	return f
}

func (f *fakePower) set(p host.Power) { f.p.Store(&p) }
func (f *fakePower) read() host.Power { return *f.p.Load() }

var (
	onAC       = host.Power{Known: true, Percent: 80}
	onBattery  = host.Power{Known: true, OnBattery: true, Percent: 40}
	saverOnAC  = host.Power{Known: true, Saver: true, Percent: 90}
	noPowerAPI = host.Power{Percent: -1}
)

// statusOf is the status events of a reply.
func statusOf(evs []reply.Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Kind == reply.EventStatus {
			out = append(out, ev.Text)
		}
	}
	return out
}

// A route follows the machine: on battery or with the energy saver on its next reply runs in
// battery saver mode — half the threads, no spin-waiting, the old decoder closed — and on AC
// power at full speed again; each reply says which mode served it.
func TestPowerModeFollowsTheMachine(t *testing.T) {
	src := newFakePower(onAC)
	rt := decoderOf(fakeDecoder{})
	route := fakeRoute(t, "cpu", 512)
	route.EP.Threads = 8
	e := fakeEngine(t, rt, Config{Power: PowerConfig{Read: src.read}}, route)
	steps := []struct {
		power  host.Power
		want   reply.Power
		status []string
		opens  int
		spin   string
	}{
		{onAC, reply.Power{Mode: "performance", Why: "on AC power", Threads: 8}, []string{"Loading the model for the CPU…", "Loading the model for the CPU: reading the tokenizer (step 1 of 2)"}, 1, ""},
		{onBattery, reply.Power{Mode: "saver", Why: "on battery (40%)", Threads: 4}, []string{"Switching the CPU to battery saver (on battery (40%))…"}, 2, "0"},
		{onBattery, reply.Power{Mode: "saver", Why: "on battery (40%)", Threads: 4}, nil, 2, "0"},
		{saverOnAC, reply.Power{Mode: "saver", Why: "on AC power, energy saver on", Threads: 4}, nil, 2, "0"},
		{onAC, reply.Power{Mode: "performance", Why: "on AC power", Threads: 8}, []string{"Switching the CPU to full speed (on AC power)…"}, 3, ""},
		{noPowerAPI, reply.Power{Mode: "performance", Why: "power source unknown", Threads: 8}, nil, 3, ""},
	}
	var answers []string
	for i, s := range steps {
		src.set(s.power)
		evs, sum := collect(t, e, context.Background(), greedy("Hi", 8))
		if sum.Err != nil {
			t.Fatalf("step %d: %v", i, sum.Err)
		}
		if diff := cmp.Diff(&s.want, sum.Power); diff != "" {
			t.Errorf("step %d (%s): reply's power (-want +got):\n%s", i, s.power, diff)
		}
		if diff := cmp.Diff(s.status, statusOf(evs)); diff != "" {
			t.Errorf("step %d: status (-want +got):\n%s", i, diff)
		}
		rt.mu.Lock()
		opens, o := rt.opens, rt.opts[len(rt.opts)-1]
		rt.mu.Unlock()
		if opens != s.opens || o.EP.Threads != s.want.Threads || o.EP.Options[eps.SpinKey] != s.spin {
			t.Errorf("step %d: %d opens, the last with %d threads and spinning %q; want %d, %d, %q",
				i, opens, o.EP.Threads, o.EP.Options[eps.SpinKey], s.opens, s.want.Threads, s.spin)
		}
		answer, _ := replyText(evs)
		answers = append(answers, answer)
	}
	for i, d := range rt.decs[:len(rt.decs)-1] {
		if !d.closed {
			t.Errorf("decoder %d was not closed when the route switched", i)
		}
	}
	if len(slices.Compact(answers)) != 1 {
		t.Errorf("the modes gave different greedy replies: %q", answers)
	}
}

// A pinned mode holds whatever the machine runs on.
func TestPowerModePinned(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		power   host.Power
		want    reply.Power
		threads int
	}{
		{eps.PowerPerformance, onBattery, reply.Power{Mode: "performance", Why: "pinned", Threads: 6}, 6},
		{eps.PowerSaver, onAC, reply.Power{Mode: "saver", Why: "pinned", Threads: 3}, 3},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			rt := decoderOf(fakeDecoder{})
			route := fakeRoute(t, "cpu", 512)
			route.EP.Threads = 6
			e := fakeEngine(t, rt, Config{Power: PowerConfig{Mode: tc.mode, Read: newFakePower(tc.power).read}}, route)
			_, sum := collect(t, e, context.Background(), greedy("Hi", 4))
			if diff := cmp.Diff(&tc.want, sum.Power); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if rt.opts[0].EP.Threads != tc.threads {
				t.Errorf("opened with %d threads, want %d", rt.opts[0].EP.Threads, tc.threads)
			}
		})
	}
}

// On a QNN route battery saver turns the HTP from burst to balanced, or to the user's choice.
func TestPowerModeQNN(t *testing.T) {
	for _, tc := range []struct {
		name, saverHTP, want string
	}{
		{"default", "", "balanced"},
		{"the user's choice", "power_saver", "power_saver"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := newFakePower(onAC)
			rt := decoderOf(fakeDecoder{})
			route := fakeRoute(t, "npu", 512)
			route.EP = EP{Name: "qnn", Options: eps.WithDefaults("qnn", nil), Threads: 2}
			e := fakeEngine(t, rt, Config{Power: PowerConfig{Read: src.read, SaverHTPMode: tc.saverHTP}}, route)
			_, sum := collect(t, e, context.Background(), greedy("Hi", 4))
			if sum.Power.HTPMode != "burst" || sum.Device != "QNN" {
				t.Errorf("on AC: %+v on %s, want burst on QNN", sum.Power, sum.Device)
			}
			src.set(onBattery)
			_, sum = collect(t, e, context.Background(), greedy("Hi", 4))
			if diff := cmp.Diff(&reply.Power{Mode: "saver", Why: "on battery (40%)", Threads: 1, HTPMode: tc.want}, sum.Power); diff != "" {
				t.Errorf("on battery (-want +got):\n%s", diff)
			}
			if got := rt.opts[1].EP.Options[eps.HTPModeKey]; got != tc.want {
				t.Errorf("reopened with htp_performance_mode %q, want %q", got, tc.want)
			}
		})
	}
}

// recordingWatch is a PowerConfig.Watch whose callback the test calls.
type recordingWatch struct {
	mu      sync.Mutex
	changed func(host.Power)
	ctx     context.Context
}

func (w *recordingWatch) watch(ctx context.Context, changed func(host.Power)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ctx, w.changed = ctx, changed
}

func (w *recordingWatch) fire(p host.Power) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.changed(p)
}

// Told of a power change while idle, a route switches at once and prefills the conversation
// its cache held, so that the next reply neither waits for the switch nor prefills it all.
func TestPowerModeSwitchesWhileIdle(t *testing.T) {
	src := newFakePower(onAC)
	rt := decoderOf(fakeDecoder{})
	route := fakeRoute(t, "cpu", 512)
	route.EP.Threads = 4
	var w recordingWatch
	e := fakeEngine(t, rt, Config{Power: PowerConfig{Read: src.read, Watch: w.watch}}, route)
	req := greedy("Tell me a story", 8)
	req.ConversationID = "c1"
	evs, _ := collect(t, e, context.Background(), req)
	answer, _ := replyText(evs)
	e.Settle()
	held := slices.Clone(rt.last().ids)

	src.set(onBattery)
	w.fire(onBattery)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		rt.mu.Lock()
		opens := rt.opens
		rt.mu.Unlock()
		if opens == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle route did not switch: %d opens", opens)
		}
	}
	e.Settle() // the switch's prefill
	if !rt.decs[0].closed || !slices.Equal(rt.last().ids, held) {
		t.Errorf("after the idle switch the old decoder is closed: %v; the new one holds %d of the %d ids the old one held",
			rt.decs[0].closed, commonPrefix(rt.last().ids, held), len(held))
	}
	req.Messages = append(req.Messages, reply.Message{Role: "assistant", Content: answer}, reply.Message{Role: "user", Content: "More"})
	evs, sum := collect(t, e, context.Background(), req)
	if len(statusOf(evs)) != 0 || sum.Power.Mode != "saver" || rt.opens != 2 {
		t.Errorf("after the idle switch: status %q, power %+v, %d opens", statusOf(evs), sum.Power, rt.opens)
	}
	if sum.ReusedTokens < len(held)/2 {
		t.Errorf("the next reply reused %d tokens of the %d the switch prefilled", sum.ReusedTokens, len(held))
	}
	e.Close()
	if w.ctx.Err() == nil {
		t.Error("closing the engine did not end the power watch")
	}
}

// A provider that refuses the battery saver options leaves the route at full speed, saying
// why; a route that cannot reopen at all gives way to the next route.
func TestPowerModeSwitchFails(t *testing.T) {
	refuseSaver := func(o LoadOptions) error {
		if o.EP.Options[eps.SpinKey] == "0" {
			return errors.New("the provider refuses these options")
		}
		return nil
	}
	t.Run("stays at full speed", func(t *testing.T) {
		src := newFakePower(onAC)
		rt := decoderOf(fakeDecoder{})
		rt.refuse = refuseSaver
		e := fakeEngine(t, rt, Config{Power: PowerConfig{Read: src.read}}, fakeRoute(t, "cpu", 512))
		collect(t, e, context.Background(), greedy("Hi", 4))
		src.set(onBattery)
		evs, sum := collect(t, e, context.Background(), greedy("Hi", 4))
		st := strings.Join(statusOf(evs), "\n")
		if sum.Err != nil || sum.Power.Mode != "performance" || !strings.Contains(st, "stays at full speed: the provider refuses these options") {
			t.Errorf("error %v, power %+v, status %q", sum.Err, sum.Power, st)
		}
	})
	t.Run("the next route serves", func(t *testing.T) {
		src := newFakePower(onAC)
		npu := decoderOf(fakeDecoder{})
		calls := 0
		npu.refuse = func(LoadOptions) error {
			if calls++; calls > 1 {
				return errors.New("the NPU is gone")
			}
			return nil
		}
		cpu := decoderOf(fakeDecoder{})
		open := func(f *models.Folder, o LoadOptions) (Decoder, error) {
			if o.EP.Name == "qnn" {
				return npu.open(f, o)
			}
			return cpu.open(f, o)
		}
		npuRoute := fakeRoute(t, "npu", 512)
		npuRoute.EP = EP{Name: "qnn"}
		e, err := New(Config{Open: open, Routes: []RouteConfig{npuRoute, fakeRoute(t, "cpu", 512)}, Power: PowerConfig{Read: src.read}})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if _, sum := collect(t, e, context.Background(), greedy("Hi", 4)); sum.Backend != "npu" {
			t.Fatalf("first reply from %s", sum.Backend)
		}
		src.set(onBattery)
		_, sum := collect(t, e, context.Background(), greedy("Hi", 4))
		if sum.Backend != "cpu" || !strings.Contains(sum.FallbackReason, "could not switch to battery saver (the NPU is gone)") || sum.Power.Mode != "saver" {
			t.Errorf("backend %s, fallback %q, power %+v", sum.Backend, sum.FallbackReason, sum.Power)
		}
	})
}
