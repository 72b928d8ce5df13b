//go:build !race

package documents_test

const raceEnabled = false
