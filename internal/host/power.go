package host

import (
	"context"
	"fmt"
	"time"
)

// Power is what the machine runs on, as the system reports it.
type Power struct {
	// Known is false where the system does not say (no power API, or nothing reported).
	Known bool
	// OnBattery is set while the machine runs on its battery (unplugged).
	OnBattery bool
	// Saver is set while the system's energy saver (battery saver) is on.
	Saver bool
	// Percent is the battery's charge from 0 to 100, or -1 when unknown or there is none.
	Percent int
}

// Saving reports whether the system asks programs to save energy: on battery or with the
// energy saver on.
func (p Power) Saving() bool { return p.Known && (p.OnBattery || p.Saver) }

// String says it as a person would: "on AC power", "on battery (62%)", "energy saver on".
func (p Power) String() string {
	if !p.Known {
		return "power source unknown"
	}
	s := "on AC power"
	if p.OnBattery {
		s = "on battery"
	}
	if p.Saver {
		s += ", energy saver on"
	}
	if p.OnBattery && p.Percent >= 0 {
		s += fmt.Sprintf(" (%d%%)", p.Percent)
	}
	return s
}

// PowerPoll is how often WatchPower reads the power state where the system sends no
// notification (Linux; Wine, which never calls the Windows notification back).
const PowerPoll = 20 * time.Second

// WatchPower calls changed with the new state whenever the machine's power changes, until ctx
// ends. On Windows the system's power-setting and resume notifications say so at once; the
// state is also read every PowerPoll as a backstop.
func WatchPower(ctx context.Context, changed func(Power)) {
	nudge := make(chan struct{}, 1)
	stop := notifyPower(nudge)
	go func() {
		defer stop()
		watchPower(ctx, ReadPower, nudge, PowerPoll, changed)
	}()
}

// watchPower is WatchPower's loop: it reads the state with read when nudged or every poll and
// calls changed when it differs from the last one read.
func watchPower(ctx context.Context, read func() Power, nudge <-chan struct{}, poll time.Duration, changed func(Power)) {
	last := read()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-nudge:
		}
		if p := read(); p != last {
			last = p
			changed(p)
		}
	}
}
