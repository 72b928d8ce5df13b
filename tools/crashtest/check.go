package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"edgechat/history"
)

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

type report struct {
	summary        string
	recovered      int
	conversations  int
	sent, keptSent int
	keptEarly      int
	lossKnown      bool
	finished       bool // the reply was saved whole, with its statistics
	loss           time.Duration
	saved          int
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
