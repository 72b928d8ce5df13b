package inference

import (
	"context"
	"fmt"
	"slices"

	"edgechat/inference/lookup"
	"edgechat/internal/eps"
	"edgechat/internal/host"
	"edgechat/reply"
)

// PowerConfig says how local routes follow the machine's power. In battery saver mode a route
// runs on half the CPU threads (at least one), its ONNX Runtime threads do not spin-wait, and a
// QNN route's HTP runs at SaverHTPMode instead of burst; at full speed it runs as configured.
type PowerConfig struct {
	// Mode pins a mode, eps.PowerPerformance or eps.PowerSaver; "" or eps.PowerAuto follows
	// the machine: on battery or with the energy saver on, battery saver.
	Mode string
	// SaverHTPMode is QNN's htp_performance_mode in battery saver mode ("" = eps.SaverHTPMode).
	SaverHTPMode string
	// Read reads the machine's power state (nil: host.ReadPower); tests give a fake.
	Read func() host.Power
	// Watch, when set, reports power changes (host.WatchPower), so that an idle route
	// switches before the next reply; without it a route switches when a reply starts.
	Watch func(ctx context.Context, changed func(host.Power))
}

// powerMode is the mode a route runs in and what chose it.
type powerMode struct {
	saver bool
	why   string
}

// pinned is powerMode.why when the settings (or --power) chose the mode.
const pinned = "pinned"

// mode decides the mode now.
func (c PowerConfig) mode() powerMode {
	switch c.Mode {
	case eps.PowerPerformance:
		return powerMode{why: pinned}
	case eps.PowerSaver:
		return powerMode{saver: true, why: pinned}
	}
	read := c.Read
	if read == nil {
		read = host.ReadPower
	}
	p := read()
	return powerMode{saver: p.Saving(), why: p.String()}
}

// apply returns a route's load options in battery saver mode (saver set) or at full speed.
func (c PowerConfig) apply(o LoadOptions, saver bool) LoadOptions {
	if !saver {
		return o
	}
	o.EP.Threads = max(1, threadsOf(o.EP)/2)
	o.EP.Options = eps.SaverOptions(o.EP.Name, o.EP.Options, c.SaverHTPMode)
	return o
}

// threadsOf is the CPU thread count ep runs on.
func threadsOf(ep EP) int {
	if ep.Threads > 0 {
		return ep.Threads
	}
	return host.PhysicalCores()
}

// label names the mode for a person: "battery saver" or "full speed".
func (m powerMode) label() string {
	if m.saver {
		return "battery saver"
	}
	return "full speed"
}

// info is what a reply says of the mode its route ran in, on ep.
func (m powerMode) info(ep EP) *reply.Power {
	p := &reply.Power{Mode: eps.PowerPerformance, Why: m.why, Threads: threadsOf(ep)}
	if m.saver {
		p.Mode = eps.PowerSaver
	}
	if prov, _ := eps.Lookup(ep.Name); prov.Name == "qnn" {
		p.HTPMode = eps.WithDefaults(prov.Name, ep.Options)[eps.HTPModeKey]
	}
	return p
}

// followPower switches the route's loaded model to the mode the machine asks for now, if it
// runs in the other one: at the start of a reply (j set; the switch is reported on its
// stream), or when the power changed while the route was idle (j nil; the conversation the
// cache held is then prefilled again, until a request comes). A route that cannot switch
// stays in its mode, says why and does not try again until the power changes back; one that
// cannot run at all any more fails, and the next route serves.
func (r *route) followPower(j *job, closed <-chan struct{}) error {
	mode := r.power.mode()
	if r.model == nil || mode.saver == r.mode.saver {
		r.mode, r.refused = mode, false
		return nil
	}
	if r.refused {
		return nil
	}
	say := func(format string, args ...any) {
		if j != nil && j.out != nil {
			reply.Emit(j.ctx, j.out, reply.Event{Kind: reply.EventStatus, Text: fmt.Sprintf(format, args...)})
		}
	}
	say("Switching the %s to %s (%s)…", deviceName(r.cfg.Name), mode.label(), mode.why)
	cached := slices.Clone(r.model.dec.Cached())
	was := r.model.opts
	err := r.model.reopen(r.power.apply(r.cfg.LoadOptions, mode.saver), r.open)
	if err != nil {
		if again := r.model.reopen(was, r.open); again != nil {
			r.model = nil
			err = fmt.Errorf("the %s could not switch to %s (%v) nor go back (%v)", deviceName(r.cfg.Name), mode.label(), err, again)
			r.setFailed(err)
			return err
		}
		say("The %s stays at %s: %v", deviceName(r.cfg.Name), r.mode.label(), err)
		r.refused = true
		r.mode.why = fmt.Sprintf("%s; %s failed: %v", mode.why, mode.label(), err)
		return nil
	}
	r.mode = mode
	r.states = newStateCache(r.states.budget) // the saved caches belong to the old decoder
	if j == nil {
		ctx, cancel := whileOpen(context.Background(), closed)
		defer cancel()
		r.model.feed(ctx, cached, func() bool { return r.pending.Load() > 0 })
	}
	return nil
}

// nudgePower tells the route's goroutine that the machine's power changed.
func (r *route) nudgePower() {
	select {
	case r.powerNudge <- struct{}{}:
	default:
	}
}

// reopen replaces the model's decoder with one opened with o (its resolved context kept):
// the old one is closed first, so that two never hold memory at once. On error the model has
// no decoder.
func (m *Model) reopen(o LoadOptions, open OpenFunc) error {
	o.MaxContext = m.opts.MaxContext
	if m.dec != nil {
		m.dec.Close()
		m.dec = nil
	}
	dec, err := open(m.Folder, o)
	if err != nil {
		return err
	}
	if err := m.attach(dec); err != nil {
		return err
	}
	m.opts, m.EP, m.nextTurn = o, o.EP, nil
	m.lookupTiming = lookup.Timing{} // what it learnt were the old decoder's run times
	return nil
}
