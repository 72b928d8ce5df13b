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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"edgechat/history"
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

// savedReply reads, as the app left them on disk, the reply to the user message text in the
// conversation files written since since: its words and whether it is whole (has its
// statistics). It never changes the folder (the app is running).
func savedReply(data, text string, since time.Time) (n int, done, ok bool) {
	des, _ := os.ReadDir(data)
	for _, de := range des {
		info, err := de.Info()
		if err != nil || !strings.HasSuffix(de.Name(), ".json") || info.ModTime().Before(since.Add(-time.Second)) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(data, de.Name()))
		if err != nil {
			continue
		}
		var c history.Conversation
		if json.Unmarshal(b, &c) != nil {
			continue
		}
		for i, m := range c.Messages {
			if m.Role != history.RoleUser || m.Content != text {
				continue
			}
			if i+1 < len(c.Messages) && c.Messages[i+1].Role == history.RoleAssistant {
				a := c.Messages[i+1]
				return words(a.Thinking) + words(a.Content), a.Stats != nil, true
			}
			return 0, false, true
		}
	}
	return 0, false, false
}

func xdo(args ...string) error {
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("xdotool %s: %v %s", strings.Join(args, " "), err, out)
	}
	return nil
}

type report struct {
	summary        string
	recovered      int
	conversations  int
	sent, keptSent int
	keptEarly      int
	lossKnown      bool
	finished       bool // the reply was saved whole, with its statistics
	loss           time.Duration
	saved, shown   int
}

// check opens the data folder as the app does and checks it against every round so far.
func check(data string, rounds []round, total int) (report, error) {
	var rep report
	store, err := history.Open(data)
	if err != nil {
		return rep, err
	}
	for _, p := range store.Problems() {
		if strings.Contains(p, "recovered from an interrupted save") {
			rep.recovered++
			continue
		}
		return rep, fmt.Errorf("the data folder has a problem: %s", p)
	}
	type found struct {
		c *history.Conversation
		i int
	}
	where := map[string]found{}
	for _, s := range store.List() {
		c, err := store.Load(s.ID)
		if err != nil {
			return rep, fmt.Errorf("conversation %s does not load: %w", s.ID, err)
		}
		if len(c.Messages) == 0 {
			return rep, fmt.Errorf("conversation %q (%s) has a title and no messages", c.Title, c.ID)
		}
		for i, m := range c.Messages {
			if m.Role == history.RoleUser {
				where[m.Content] = found{c, i}
			}
		}
		rep.conversations++
	}
	for _, r := range rounds {
		_, ok := where[r.text]
		switch {
		case r.killedAt >= sentAfter:
			rep.sent++
			if !ok {
				return rep, fmt.Errorf("message %d (%q), sent %v before the kill, is gone", r.n, r.text, r.killedAt.Round(time.Millisecond))
			}
			rep.keptSent++
		case ok:
			rep.keptEarly++
		}
	}
	last := rounds[len(rounds)-1]
	f, ok := where[last.text]
	if !ok {
		rep.summary = "message not saved (killed before its save)"
		return rep, nil
	}
	if f.i+1 < len(f.c.Messages) && f.c.Messages[f.i+1].Role == history.RoleAssistant {
		a := f.c.Messages[f.i+1]
		rep.saved = words(a.Thinking) + words(a.Content)
		rep.finished = a.Stats != nil && a.Stats.FinishReason == "stop"
	}
	if last.seen && rep.saved < last.seenWords {
		return rep, fmt.Errorf("the reply had %d words on disk before the kill and %d after it", last.seenWords, rep.saved)
	}
	// The text lost is what streamed after the last save: the time from that save to the
	// kill, unless the reply was already saved whole. The demo engine's pacing bounds it by
	// the words still to come.
	rep.lossKnown = last.killedAt > demoStatus
	switch {
	case rep.finished:
		rep.loss = 0
	case last.seen:
		rep.loss = last.killedAt - max(last.lastSave, demoStatus)
	default:
		rep.loss = last.killedAt - demoStatus
	}
	if total > 0 {
		rep.loss = min(rep.loss, time.Duration(total-rep.saved)*demoPerWord)
	}
	rep.loss = max(rep.loss, 0)
	rep.summary = fmt.Sprintf("message kept, reply saved with %d words %v before the kill (text lost ≤ %v)", rep.saved, (last.killedAt - last.lastSave).Round(time.Millisecond), rep.loss.Round(time.Millisecond))
	return rep, nil
}

// words counts the demo engine's units: it sends text split after each space.
func words(s string) int {
	if s == "" {
		return 0
	}
	return len(strings.SplitAfter(s, " "))
}
