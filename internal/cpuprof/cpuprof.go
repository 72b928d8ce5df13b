// Package cpuprof starts the CPU profile the measuring tools write with their -cpuprofile flag.
package cpuprof

import (
	"os"
	"runtime/pprof"
)

// Start writes a CPU profile to path until the returned stop is called; with an empty path
// it profiles nothing and stop does nothing.
func Start(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
