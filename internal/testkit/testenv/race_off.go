//go:build !race

package testenv

// RaceEnabled says the test binary was built with the race detector.
const RaceEnabled = false
