package rss

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

const supported, privateSupported = true, true

func private() (int64, error) { return status("RssAnon") }

// resetPeak writes 5 to clear_refs: "reset the peak resident set size to the current one"
// (proc(5), Linux 4.0 and later).
func resetPeak() error {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("reset the peak resident size: %w", err)
	}
	return nil
}

func status(key string) (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	return parseStatus(string(b), key)
}

// parseStatus finds "key:   1234 kB" in a /proc status file and returns bytes.
func parseStatus(s, key string) (int64, error) {
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k != key {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("unexpected %s line %q", key, line)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("unexpected %s line %q: %w", key, line, err)
		}
		return n << 10, nil
	}
	return 0, fmt.Errorf("no %s in /proc/self/status", key)
}
