package host

import (
	"strconv"
	"strings"
	"time"
)

// cpuTimes are the machine's cumulative CPU times over all processors, in any one unit.
type cpuTimes struct{ idle, total uint64 }

// CPUBusy samples the machine's CPU use over window: the share of all processors' time that
// was not idle (0 to 1), whoever used it. ok is false where the system does not say.
func CPUBusy(window time.Duration) (busy float64, ok bool) {
	a, ok := systemCPUTimes()
	if !ok {
		return 0, false
	}
	time.Sleep(window)
	b, ok := systemCPUTimes()
	if !ok || b.total <= a.total {
		return 0, false
	}
	idle := float64(b.idle-a.idle) / float64(b.total-a.total)
	return min(1, max(0, 1-idle)), true
}

// procStatTimes reads the aggregate "cpu" line of /proc/stat: user nice system idle iowait
// irq softirq steal …; idle and iowait count as idle, guest time is already in user.
func procStatTimes(stat string) (cpuTimes, bool) {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return cpuTimes{}, false
	}
	var t cpuTimes
	for i, s := range f[1:min(len(f), 9)] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return cpuTimes{}, false
		}
		t.total += v
		if i == 3 || i == 4 {
			t.idle += v
		}
	}
	return t, true
}
