//go:build !unix

package testenv

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
