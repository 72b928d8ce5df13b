package host

import (
	"io/fs"
	"strconv"
	"strings"
)

// sysfsPower reads the power state from a /sys tree: on AC when a mains or USB supply is
// online, on battery when none is and a battery discharges.
func sysfsPower(sys fs.FS) Power {
	p := Power{Percent: -1}
	read := func(name string) string {
		b, err := fs.ReadFile(sys, name)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	entries, _ := fs.ReadDir(sys, "class/power_supply")
	external, online, discharging := false, false, false
	for _, e := range entries {
		dir := "class/power_supply/" + e.Name() + "/"
		switch read(dir + "type") {
		case "Mains", "USB", "USB_C", "USB_PD":
			external = true
			online = online || read(dir+"online") == "1"
		case "Battery":
			if read(dir+"scope") == "Device" { // a mouse's or a headset's battery
				continue
			}
			p.Known = true
			if read(dir+"status") == "Discharging" {
				discharging = true
			}
			if n, err := strconv.Atoi(read(dir + "capacity")); err == nil && p.Percent < 0 {
				p.Percent = n
			}
		}
	}
	if external {
		p.Known = true
		p.OnBattery = !online && (discharging || p.Percent >= 0)
	} else {
		p.OnBattery = discharging
	}
	if read("firmware/acpi/platform_profile") == "low-power" {
		p.Known, p.Saver = true, true
	}
	return p
}
