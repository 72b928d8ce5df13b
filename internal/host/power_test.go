package host

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"
)

func TestPowerFromStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    systemPowerStatus
		want Power
	}{
		{"plugged-in laptop", systemPowerStatus{ACLineStatus: 1, BatteryFlag: 8, BatteryLifePercent: 80}, Power{Known: true, Percent: 80}},
		{"on battery", systemPowerStatus{ACLineStatus: 0, BatteryFlag: 1, BatteryLifePercent: 62}, Power{Known: true, OnBattery: true, Percent: 62}},
		{"energy saver on battery", systemPowerStatus{ACLineStatus: 0, BatteryFlag: 2, BatteryLifePercent: 15, SystemStatusFlag: 1}, Power{Known: true, OnBattery: true, Saver: true, Percent: 15}},
		{"energy saver pinned while plugged in", systemPowerStatus{ACLineStatus: 1, BatteryLifePercent: 90, SystemStatusFlag: 1}, Power{Known: true, Saver: true, Percent: 90}},
		{"desktop without a battery", systemPowerStatus{ACLineStatus: 1, BatteryFlag: 128, BatteryLifePercent: 255}, Power{Known: true, Percent: -1}},
		{"nothing known", systemPowerStatus{ACLineStatus: 255, BatteryFlag: 255, BatteryLifePercent: 255}, Power{Percent: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := powerFromStatus(tc.s); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSysfsPower(t *testing.T) {
	supply := func(kv ...string) fstest.MapFS {
		m := fstest.MapFS{}
		for i := 0; i < len(kv); i += 2 {
			m["class/power_supply/"+kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1] + "\n")}
		}
		return m
	}
	for _, tc := range []struct {
		name string
		sys  fstest.MapFS
		want Power
	}{
		{"no supplies (a server, a VM)", fstest.MapFS{}, Power{Percent: -1}},
		{"laptop plugged in", supply("AC/type", "Mains", "AC/online", "1", "BAT0/type", "Battery", "BAT0/status", "Charging", "BAT0/capacity", "71"),
			Power{Known: true, Percent: 71}},
		{"laptop unplugged", supply("AC/type", "Mains", "AC/online", "0", "BAT0/type", "Battery", "BAT0/status", "Discharging", "BAT0/capacity", "40"),
			Power{Known: true, OnBattery: true, Percent: 40}},
		{"USB-C charger online", supply("ucsi-source-psy-1/type", "USB", "ucsi-source-psy-1/online", "1", "BAT1/type", "Battery", "BAT1/status", "Not charging", "BAT1/capacity", "100"),
			Power{Known: true, Percent: 100}},
		{"battery only, discharging", supply("BAT0/type", "Battery", "BAT0/status", "Discharging"), Power{Known: true, OnBattery: true, Percent: -1}},
		{"a mouse's battery is not the machine's", supply("AC/type", "Mains", "AC/online", "1", "hidpp_battery_0/type", "Battery", "hidpp_battery_0/scope", "Device", "hidpp_battery_0/status", "Discharging", "hidpp_battery_0/capacity", "5"),
			Power{Known: true, Percent: -1}},
		{"low-power platform profile", fstest.MapFS{"firmware/acpi/platform_profile": {Data: []byte("low-power\n")}}, Power{Known: true, Saver: true, Percent: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sysfsPower(tc.sys); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestPowerString(t *testing.T) {
	for _, tc := range []struct {
		p    Power
		want string
	}{
		{Power{Percent: -1}, "power source unknown"},
		{Power{Known: true, Percent: 80}, "on AC power"},
		{Power{Known: true, OnBattery: true, Percent: 62}, "on battery (62%)"},
		{Power{Known: true, OnBattery: true, Saver: true, Percent: -1}, "on battery, energy saver on"},
		{Power{Known: true, Saver: true, Percent: 90}, "on AC power, energy saver on"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}

// The watcher reports each change once, whether a notification or the poll found it.
func TestWatchPower(t *testing.T) {
	var cur atomic.Pointer[Power]
	var reads atomic.Int32
	set := func(p Power) { cur.Store(&p) }
	read := func() Power { reads.Add(1); return *cur.Load() }
	started := func() { // the watcher has read the state it starts from
		for reads.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	got := make(chan Power, 8)
	expect := func(what string, want Power) {
		t.Helper()
		select {
		case p := <-got:
			if p != want {
				t.Fatalf("%s: %+v, want %+v", what, p, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no call", what)
		}
	}

	set(Power{Known: true, Percent: 50})
	ctx, cancel := context.WithCancel(context.Background())
	nudge := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		watchPower(ctx, read, nudge, time.Hour, func(p Power) { got <- p })
	}()
	started()
	unplugged := Power{Known: true, OnBattery: true, Percent: 49}
	set(unplugged)
	nudge <- struct{}{}
	expect("a notification after unplugging", unplugged)
	nudge <- struct{}{} // nothing changed: no call
	select {
	case p := <-got:
		t.Fatalf("a nudge without a change reported %+v", p)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	<-done

	// Without notifications the poll finds the change.
	reads.Store(0)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go watchPower(ctx, read, nil, time.Millisecond, func(p Power) { got <- p })
	started()
	plugged := Power{Known: true, Percent: 49}
	set(plugged)
	expect("the poll after plugging in", plugged)
}
