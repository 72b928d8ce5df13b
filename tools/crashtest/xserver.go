package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// xserver is the Xvfb the app runs on, started (again) when needed.
type xserver struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// ensure starts Xvfb on a free display unless it runs, and points DISPLAY at it.
func (x *xserver) ensure() error {
	if x.alive() {
		return nil
	}
	for n := 231; n < 300; n++ {
		sock := fmt.Sprintf("/tmp/.X11-unix/X%d", n)
		if _, err := os.Stat(sock); err == nil {
			continue
		}
		// -noreset: without it the server resets when its last client goes (each kill), and an
		// app connecting meanwhile fails to open the display.
		cmd := exec.Command("Xvfb", fmt.Sprintf(":%d", n), "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset")
		if err := cmd.Start(); err != nil {
			return err
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat(sock); err == nil {
				x.cmd, x.done = cmd, done
				os.Setenv("DISPLAY", fmt.Sprintf(":%d", n))
				return nil
			}
			select {
			case <-done:
				deadline = time.Time{} // it exited: try the next display
			default:
			}
		}
		cmd.Process.Kill()
		<-done
	}
	return errors.New("could not start Xvfb on any display from :231 to :299")
}

func (x *xserver) alive() bool {
	if x.cmd == nil {
		return false
	}
	select {
	case <-x.done:
		return false
	default:
		return true
	}
}

func (x *xserver) stop() {
	if x.alive() {
		x.cmd.Process.Kill()
		<-x.done
	}
}

// findWindow waits for the EdgeChat window of process pid. It polls: a search can fail
// outright while windows of the process killed before are still being destroyed.
func findWindow(pid int, within time.Duration) (string, error) {
	var err error
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var out []byte
		out, err = exec.Command("xdotool", "search", "--pid", fmt.Sprint(pid), "--name", "^EdgeChat$").Output()
		if ids := strings.Fields(string(out)); err == nil && len(ids) > 0 {
			return ids[0], nil
		}
	}
	return "", fmt.Errorf("no window after %v (last search: %v)", within, err)
}

func xdo(args ...string) error {
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("xdotool %s: %v %s", strings.Join(args, " "), err, out)
	}
	return nil
}
