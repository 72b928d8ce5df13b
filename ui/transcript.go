package ui

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
)

// Opening a conversation shows its newest messages first: building a bubble (Markdown,
// RichText, buttons with SVG icons) costs a few milliseconds, so a chat of 40 messages took
// ~150 ms of CPU before its text appeared. The newest firstBubbles are built at once and the
// window shows them (at the end of the transcript, where it opens); the older ones are built
// after that frame, olderBatch at a time, each batch on the main goroutine through fyne.Do
// and put above the others, until the whole conversation is there.
const (
	firstBubbles = 8
	olderBatch   = 6
	olderPause   = 20 * time.Millisecond // a frame or so: the window draws between batches
)

// olderBubbles is what is left to build of the transcript shown.
type olderBubbles struct {
	gen     atomic.Int64 // counts transcript changes; a batch of an earlier one does nothing
	items   []*MessageVM // the transcript last reconciled
	pending []*MessageVM // not built yet, oldest first; batches build from the end
	running sync.WaitGroup
}

// messagesChanged reconciles bubbles with the transcript, reusing the ones still there and
// building at most firstBubbles now (the newest); the older ones follow in batches.
func (v *ChatView) messagesChanged() {
	items, _ := v.vm.Messages.Get()
	if slices.Equal(items, v.older.items) && v.older.items != nil {
		return // shown already (by Shown), or a listener's call for an earlier value
	}
	v.older.items = slices.Clone(items) // the binding may change its slice in place
	gen := v.older.gen.Add(1)
	keep := make(map[*MessageVM]bool, len(items))
	for _, m := range items {
		keep[m] = true
	}
	for m, b := range v.bubbles {
		if !keep[m] {
			b.close()
			delete(v.bubbles, m)
		}
	}
	first, built := len(items), 0
	for ; first > 0; first-- {
		if v.bubbles[items[first-1]] == nil {
			if built == firstBubbles {
				break
			}
			built++
		}
	}
	objs := make([]fyne.CanvasObject, 0, len(items)-first)
	for _, m := range items[first:] {
		objs = append(objs, v.bubble(m).content)
	}
	v.older.pending = items[:first]
	v.showList(objs)
	if len(items) == 0 {
		v.follow = true
	}
	v.actionsChanged()
	v.grew()
	if first > 0 {
		v.buildOlderLater(gen)
	}
}

// bubble returns m's bubble, building it when there is none yet.
func (v *ChatView) bubble(m *MessageVM) *bubble {
	b := v.bubbles[m]
	if b == nil {
		b = newBubble(m, v.grew, v.scroll)
		b.setKeys(&v.keys)
		v.bubbles[m] = b
	}
	return b
}

// showList lays out and redraws the list, rather than Refresh it: Container.Refresh
// refreshes every bubble in it again (each button re-reads its SVG icon), which cost more
// than building them.
func (v *ChatView) showList(objs []fyne.CanvasObject) {
	v.list.Objects = objs
	v.list.Layout.Layout(objs, v.list.Size())
	canvas.Refresh(v.list)
}

// buildOlderLater builds the pending bubbles of transcript gen, a batch after each pause.
func (v *ChatView) buildOlderLater(gen int64) {
	v.older.running.Add(1)
	go func() {
		defer v.older.running.Done()
		more := make(chan bool, 1)
		// The pauses count from when the main goroutine has done what was queued with the
		// transcript (on a loaded machine that may take longer than a pause), so that the
		// first batch does not come before the frame that shows the newest messages.
		fyne.Do(func() { more <- true })
		<-more
		for v.older.gen.Load() == gen {
			time.Sleep(olderPause)
			fyne.Do(func() { more <- v.buildOlder(gen) })
			if !<-more {
				return
			}
		}
	}()
}

// buildOlder puts the next batch of older bubbles above the ones shown and reports whether
// more are pending. The part of the transcript in view stays in view: at its end while
// following, else where it was.
func (v *ChatView) buildOlder(gen int64) bool {
	if v.older.gen.Load() != gen {
		return false // the transcript changed, or the app quit (this may then run off main)
	}
	p := v.older.pending
	n := max(0, len(p)-olderBatch)
	objs := make([]fyne.CanvasObject, 0, len(p)-n+len(v.list.Objects))
	for _, m := range p[n:] {
		objs = append(objs, v.bubble(m).content)
	}
	v.older.pending = p[:n]
	var top fyne.CanvasObject
	if len(v.list.Objects) > 0 {
		top = v.list.Objects[0]
	}
	before := v.scroll.Offset.Y
	var topY float32
	if top != nil {
		topY = top.Position().Y
	}
	v.showList(append(objs, v.list.Objects...))
	c := v.scroll.Content
	c.Resize(c.MinSize().Max(v.scroll.Size()))
	if !v.follow && top != nil {
		v.scrollTo(before + top.Position().Y - topY)
	}
	v.settle()
	return n > 0
}

// stopOlder stops building older bubbles (the window quits).
func (v *ChatView) stopOlder() { v.older.gen.Add(1) }

// waitOlder waits until the older bubbles are built or their building stopped (tests).
func (v *ChatView) waitOlder() { v.older.running.Wait() }

// Shown builds the transcript now, for an open or a new chat the user asked for: the
// listener's call is queued behind the other bindings' (the sidebar's selection, the title,
// the model) and the window drew frames in between (three to eight on a loaded machine)
// with the new selection and the old conversation.
func (v *ChatView) Shown() { v.messagesChanged() }
