// Command switchtime measures, in a real window (run it under Xvfb), how long choosing a chat
// in the sidebar takes until the window has drawn it, and how long New chat takes. It opens
// EdgeChat's window over a data folder of 100 conversations of 20 turns (written with two
// models, so each switch also switches the model), then alternately selects the first two
// conversations in the sidebar and starts a new chat, RUNS times each.
//
// For each action it reports the wall time and the process's CPU time from the action until
// the end of the first frame drawn after it, and until the end of the first frame drawn after
// the binding listeners the action queued on the main goroutine ran (before main's window
// built the transcript itself, in the action, it was built in one of them; the window drew
// frames in between). A probe in a canvas overlay, drawn after the window's content, notes
// when a frame walks it. It also reports the CPU time until those listeners ran, and the
// probe's walks in the meantime (a frame walks it once or twice). Under Xvfb, Mesa's llvmpipe draws on the CPU, so the frame's CPU
// time includes drawing that a GPU does on a real PC.
//
// Usage: xvfb-run -a -s "-screen 0 1280x800x24" go run ./tools/switchtime [-runs 10] [-cpuprofile F]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"edgechat/config"
	"edgechat/history"
	"edgechat/internal/cpuprof"
	"edgechat/internal/cputime"
	"edgechat/reply"
	"edgechat/ui"
)

func main() {
	runs := flag.Int("runs", 10, "switches (and new chats) to measure")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	stop, err := cpuprof.Start(*profile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "switchtime:", err)
		os.Exit(1)
	}
	defer stop()
	if err := run(*runs); err != nil {
		fmt.Fprintln(os.Stderr, "switchtime:", err)
		stop()
		os.Exit(1)
	}
}

func run(runs int) error {
	root, err := os.MkdirTemp("", "switchtime")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	hs, err := seed(root)
	if err != nil {
		return err
	}
	// Fyne keeps the app's preferences in the user's config folder: here the throw-away one.
	if err := os.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config")); err != nil {
		return err
	}
	s := config.Defaults()
	s.CPU.Model = filepath.Join(root, "model-0")
	a := app.NewWithID("io.edgechat.switchtime")
	m := ui.New(a, ui.Deps{
		Engine:   noEngine{},
		Settings: &memSettings{s: s}, History: hs,
		NewSaver: func(c *history.Conversation) ui.Autosaver { return hs.NewAutosaver(c, time.Second) },
	})
	p := newProbe()
	m.Window.Canvas().Overlays().Add(p)
	m.Window.Resize(fyne.NewSize(1100, 720))
	go func() {
		defer fyne.Do(a.Quit)
		time.Sleep(3 * time.Second) // the window is up and settled
		var open, newChat []sample
		for i := range runs {
			open = append(open, measure(p, func() { m.SidebarView.List.Select(i % 2) }))
			time.Sleep(500 * time.Millisecond) // the older messages are built, the model switched
			newChat = append(newChat, measure(p, m.NewChat))
			time.Sleep(300 * time.Millisecond)
		}
		report("open a chat of 40 messages", open)
		report("New chat", newChat)
		time.AfterFunc(10*time.Second, func() { os.Exit(0) }) // should quitting hang
	}()
	m.Window.ShowAndRun()
	return nil
}

// sample is one action's figures.
type sample struct {
	wall, cpu time.Duration // to the end of the first frame after the queued listeners ran
	firstWall time.Duration // to the end of the first frame after the action itself
	firstCPU  time.Duration
	work      time.Duration // CPU until the action and the listeners it queued ran
	before    time.Duration // frames drawn in between (a count)
}

// measure runs action on the main goroutine and waits for the first frame drawn after it.
func measure(p *probe, action func()) sample {
	cpu0, t0 := cputime.Used(), time.Now()
	marked := make(chan stamp, 1)
	var acted time.Time
	fyne.DoAndWait(func() {
		action()
		acted = time.Now()
		// Queued after the binding listeners the action queued (main's window built the
		// transcript in one of them): runs once they did.
		fyne.Do(func() { marked <- stamp{at: time.Now(), cpu: cputime.Used()} })
	})
	built := <-marked
	time.Sleep(400 * time.Millisecond)
	first := p.frameAfter(acted)
	end := p.frameAfter(built.at)
	before := p.frames(t0, built.at)
	p.clear()
	return sample{wall: end.at.Sub(t0), cpu: end.cpu - cpu0, firstWall: first.at.Sub(t0), firstCPU: first.cpu - cpu0,
		work: built.cpu - cpu0, before: time.Duration(before)}
}

func report(what string, ss []sample) {
	pick := func(f func(sample) time.Duration) (med, lo, hi time.Duration) {
		d := make([]time.Duration, len(ss))
		for i, s := range ss {
			d[i] = f(s)
		}
		slices.Sort(d)
		return d[len(d)/2], d[0], d[len(d)-1]
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	for _, row := range []struct {
		name string
		f    func(sample) time.Duration
	}{
		{"1st frame after action, wall", func(s sample) time.Duration { return s.firstWall }},
		{"1st frame after action, CPU", func(s sample) time.Duration { return s.firstCPU }},
		{"frame after listeners, wall", func(s sample) time.Duration { return s.wall }},
		{"frame after listeners, CPU", func(s sample) time.Duration { return s.cpu }},
		{"until listeners ran, CPU", func(s sample) time.Duration { return s.work }},
	} {
		med, lo, hi := pick(row.f)
		fmt.Printf("%-28s %-28s median %s (min %s, max %s, %d runs)\n", what, row.name, ms(med), ms(lo), ms(hi), len(ss))
	}
	med, lo, hi := pick(func(s sample) time.Duration { return s.before })
	fmt.Printf("%-28s %-28s median %d (min %d, max %d)\n", what, "walks before listeners ran", med, lo, hi)
}

// probe is an invisible overlay; its renderer notes when a frame walks it to draw it.
type probe struct {
	widget.BaseWidget
	mu    sync.Mutex
	walks []stamp
}

type stamp struct {
	at  time.Time
	cpu time.Duration
}

func newProbe() *probe {
	p := &probe{}
	p.ExtendBaseWidget(p)
	p.Resize(fyne.NewSize(1, 1))
	return p
}

func (p *probe) CreateRenderer() fyne.WidgetRenderer { return &probeRenderer{p: p} }

// frameAfter is the end of the first frame after t: the last walk of the first burst of
// walks after t (a frame lays out, then draws; the walks of one frame are close together).
func (p *probe) frameAfter(t time.Time) stamp {
	p.mu.Lock()
	defer p.mu.Unlock()
	var last stamp
	for _, w := range p.walks {
		if w.at.Before(t) {
			continue
		}
		if !last.at.IsZero() && w.at.Sub(last.at) > 4*time.Millisecond {
			break
		}
		last = w
	}
	return last
}

// frames counts the bursts of walks between t0 and t (a frame may make two: layout, paint).
func (p *probe) frames(t0, t time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	var prev time.Time
	for _, w := range p.walks {
		if w.at.Before(t0) || !w.at.Before(t) {
			continue
		}
		if prev.IsZero() || w.at.Sub(prev) > 4*time.Millisecond {
			n++
		}
		prev = w.at
	}
	return n
}

func (p *probe) clear() {
	p.mu.Lock()
	p.walks = p.walks[:0]
	p.mu.Unlock()
}

type probeRenderer struct {
	p    *probe
	rect *canvas.Rectangle
}

func (r *probeRenderer) Objects() []fyne.CanvasObject {
	r.p.mu.Lock()
	r.p.walks = append(r.p.walks, stamp{at: time.Now(), cpu: cputime.Used()})
	r.p.mu.Unlock()
	if r.rect == nil {
		r.rect = canvas.NewRectangle(nil)
	}
	return []fyne.CanvasObject{r.rect}
}
func (r *probeRenderer) Layout(fyne.Size)   {}
func (r *probeRenderer) MinSize() fyne.Size { return fyne.NewSize(1, 1) }
func (r *probeRenderer) Refresh()           {}
func (r *probeRenderer) Destroy()           {}

// seed writes 100 conversations of 20 turns, alternately written with two models.
func seed(root string) (*history.Store, error) {
	hs, err := history.Open(filepath.Join(root, "data"))
	if err != nil {
		return nil, err
	}
	for i := range 100 {
		model := filepath.Join(root, fmt.Sprintf("model-%d", i%2))
		if err := os.MkdirAll(model, 0o755); err != nil {
			return nil, err
		}
		c := history.NewConversation(fmt.Sprintf("Conversation %03d", i))
		c.Model, c.Device, c.Mode = model, "cpu", history.ModeChat
		for j := range 20 {
			c.Messages = append(c.Messages,
				history.Message{ID: fmt.Sprintf("u%d", j), Role: "user", Content: "How do I read a large file line by line?"},
				history.Message{ID: fmt.Sprintf("a%d", j), Role: "assistant", Content: "Use a **bufio.Scanner**:\n\n```go\nsc := bufio.NewScanner(f)\nfor sc.Scan() {\n\tprocess(sc.Text())\n}\n```\n\n" + strings.Repeat("It reads the file in chunks and hands you one line at a time. ", 6)})
		}
		if err := hs.Save(c); err != nil {
			return nil, err
		}
	}
	return hs, nil
}

type noEngine struct{}

func (noEngine) Generate(context.Context, reply.Request) (<-chan reply.Event, error) {
	return nil, errors.New("switchtime sends nothing")
}

type memSettings struct{ s config.Settings }

func (m *memSettings) Settings() config.Settings    { return m.s }
func (m *memSettings) Save(s config.Settings) error { m.s = s; return nil }
