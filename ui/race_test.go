//go:build race

package ui

// raceEnabled: the race detector slows everything several times; time bounds are not checked.
const raceEnabled = true
