//go:build !linux && !windows

package host

// ReadPower: this system's power state is not read; the machine counts as plugged in.
func ReadPower() Power { return Power{Percent: -1} }

func notifyPower(chan<- struct{}) (stop func()) { return func() {} }
