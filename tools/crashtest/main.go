// Command crashtest kills the real EdgeChat window with SIGKILL at random points of a
// streaming reply, many times on one data folder, and checks after every kill that each
// conversation file parses, every message sent is still there, no conversation is a title
// without messages, and at most about a second of reply text was lost (make crash-test).
//
// It starts its own X server (Xvfb, again if it stops) and drives the window with xdotool. Replies come from
// the app's --demo-engine (a build with the demo tag), whose pacing is known (a status for 0.7 s, then a word every
// 25 ms), so the text shown at the moment of the kill can be compared with the text saved.
//
//	go build -tags demo -o build/edgechat-demo .
//	go run ./tools/crashtest --app build/edgechat-demo --kills 40
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// The demo engine's pacing (internal/demo): a status event held 700 ms, then one word every 25 ms.
const (
	demoStatus  = 700 * time.Millisecond
	demoPerWord = 25 * time.Millisecond
)

// sentAfter is how long after Enter a message counts as sent: the app has handled the key
// and its one save (title and message) has returned.
const sentAfter = 150 * time.Millisecond

type round struct {
	n        int
	newChat  bool
	text     string
	enter    time.Time
	killedAt time.Duration // after Enter

	// What polling the data folder saw of the reply before the kill.
	seen      bool          // the reply's message was on disk
	lastSave  time.Duration // after Enter, when the saved reply last changed
	seenWords int           // its words then
	seenDone  bool          // it was saved whole, with its statistics
}

func main() {
	app := flag.String("app", "build/edgechat-demo", "the EdgeChat binary, built with -tags demo")
	kills := flag.Int("kills", 40, "how many times to kill the app")
	work := flag.String("work", "", "folder for settings, data and logs (default: a new temporary folder)")
	maxLoss := flag.Duration("max-loss", 1250*time.Millisecond, "most reply text (as streaming time) a kill may lose")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "random seed (printed, to repeat a run)")
	flag.Parse()
	if err := run(*app, *work, *kills, *maxLoss, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "crashtest:", err)
		os.Exit(1)
	}
}

func run(app, work string, kills int, maxLoss time.Duration, seed uint64) error {
	for _, tool := range []string{"Xvfb", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not found — apt-get install xvfb xdotool", tool)
		}
	}
	x := &xserver{}
	defer x.stop()
	if work == "" {
		dir, err := os.MkdirTemp("", "edgechat-crash-")
		if err != nil {
			return err
		}
		work = dir
	}
	if err := os.MkdirAll(work, 0o700); err != nil {
		return err
	}
	data := filepath.Join(work, "data")
	cfg := filepath.Join(work, "settings.yaml")
	// The demo engine needs no model; a model path only tells the window to show the chat.
	if err := os.WriteFile(cfg, []byte("cpu:\n  model: demo\ntheme: light\n"), 0o600); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 22))
	fmt.Printf("crashtest: %d kills on %s (seed %d)\n", kills, data, seed)

	var rounds []round
	var losses []time.Duration
	recovered, early := 0, 0
	// The first kill comes well after the reply's end: its saved reply gives the length of
	// the demo reply, which bounds the words shown at a later kill.
	total := 0
	for i := range kills {
		r := round{n: i + 1, newChat: i == 0 || rng.IntN(2) == 0, text: fmt.Sprintf("crash test message %d %04x", i+1, rng.IntN(1<<16))}
		// Kill at a random point: one in five within 50 ms of Enter, the rest anywhere from
		// before the first word to after the reply's end (~3.5 s).
		delay := time.Duration(rng.Int64N(int64(4 * time.Second)))
		switch {
		case i == 0:
			delay = 6 * time.Second
		case rng.IntN(5) == 0:
			delay = time.Duration(rng.Int64N(int64(50 * time.Millisecond)))
		}
		logFile := filepath.Join(work, fmt.Sprintf("app-%02d.log", r.n))
		for try := 1; ; try++ {
			if err := x.ensure(); err != nil {
				return err
			}
			err := killDuring(app, cfg, data, logFile, &r, delay)
			if err == nil {
				break
			}
			log, _ := os.ReadFile(logFile)
			noDisplay := bytes.Contains(log, []byte("Failed to open display"))
			if (x.alive() && !noDisplay) || try == 3 {
				return fmt.Errorf("round %d: %w", r.n, err)
			}
			// The X server stopped or refused the app (something else on the machine): that
			// was an abrupt end too; check the folder and start this round again.
			fmt.Printf("round %d: the X server stopped or refused the app; starting the round again\n", r.n)
			if noDisplay {
				x.stop()
			}
			if _, err := check(data, rounds, total); err != nil {
				return fmt.Errorf("after the X server stopped in round %d: %w", r.n, err)
			}
		}
		rounds = append(rounds, r)
		rep, err := check(data, rounds, total)
		if i == 0 && err == nil {
			if !rep.finished {
				return fmt.Errorf("the first reply was not saved whole within %v of Enter; see %s", r.killedAt, work)
			}
			total = rep.saved
		}
		if err != nil {
			return fmt.Errorf("after kill %d (%v after Enter, %s): %w; files in %s", r.n, r.killedAt.Round(time.Millisecond), kind(r), err, data)
		}
		recovered += rep.recovered
		if r.killedAt < sentAfter {
			early++
		}
		if rep.lossKnown {
			losses = append(losses, rep.loss)
			if rep.loss > maxLoss {
				return fmt.Errorf("kill %d (%v after Enter) lost %v of reply text (%d words saved, the last save %v before the kill); over %v", r.n, r.killedAt.Round(time.Millisecond), rep.loss, rep.saved, r.killedAt-r.lastSave, maxLoss)
			}
		}
		if i == 0 {
			rep.summary = fmt.Sprintf("message kept, reply saved whole: %d words (the length later kills are measured against)", total)
		}
		fmt.Printf("kill %2d: %-8s %6v after Enter: %s\n", r.n, kind(r), r.killedAt.Round(time.Millisecond), rep.summary)
	}
	rep, err := check(data, rounds, total)
	if err != nil {
		return err
	}
	slices.Sort(losses)
	fmt.Printf("crashtest: %d kills, %d conversations, %d of %d messages sent ≥ %v before the kill kept, %d of %d killed sooner kept; %d interrupted saves recovered, no file damaged\n",
		len(rounds), rep.conversations, rep.keptSent, rep.sent, sentAfter, rep.keptEarly, early, recovered)
	if len(losses) > 0 {
		fmt.Printf("crashtest: reply text lost per kill mid-reply (%d kills): median %v, max %v (limit %v)\n",
			len(losses), losses[len(losses)/2].Round(time.Millisecond), losses[len(losses)-1].Round(time.Millisecond), maxLoss)
	}
	return nil
}

func kind(r round) string {
	if r.newChat {
		return "new chat"
	}
	return "continue"
}

// killDuring starts the app, sends r's message (in a new chat or the latest conversation)
// and kills the app delay after Enter.
func killDuring(app, cfg, data, logFile string, r *round, delay time.Duration) error {
	r.seen, r.seenWords, r.seenDone, r.lastSave = false, 0, false, 0
	log, err := os.Create(logFile)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(app, "--config", cfg, "--data-dir", data, "--demo-engine")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "LANG=en_US.UTF-8")
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	wid, err := findWindow(cmd.Process.Pid, 30*time.Second)
	if err != nil {
		return fmt.Errorf("the window did not open (see %s): %v", logFile, err)
	}
	time.Sleep(1500 * time.Millisecond) // first frames; the composer has the focus
	if err := xdo("windowsize", wid, "1280", "800"); err != nil {
		return err
	}
	time.Sleep(300 * time.Millisecond)
	if !r.newChat {
		if err := xdo("mousemove", "--window", wid, "100", "128", "click", "1"); err != nil { // the latest conversation
			return err
		}
		time.Sleep(400 * time.Millisecond)
		if err := xdo("mousemove", "--window", wid, "640", "750", "click", "1"); err != nil { // the composer
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := xdo("type", "--delay", "5", r.text); err != nil {
		return err
	}
	if err := xdo("key", "Return"); err != nil {
		return err
	}
	r.enter = time.Now()
	for time.Since(r.enter) < delay {
		if words, done, ok := savedReply(data, r.text, r.enter); ok && (!r.seen || words != r.seenWords || done != r.seenDone) {
			r.seen, r.seenWords, r.seenDone, r.lastSave = true, words, done, time.Since(r.enter)
		}
		time.Sleep(min(10*time.Millisecond, delay-time.Since(r.enter)))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	r.killedAt = time.Since(r.enter)
	return nil
}
