package ui

import (
	"context"
	"strings"
	"time"

	"edgechat/reply"

	"edgechat/history"
)

// startReply asks the engine for a reply to the conversation and streams it into a new
// assistant message. Called on the main goroutine with no reply in progress.
func (vm *ChatVM) startReply() {
	s := vm.deps.Settings()
	saver := vm.saver
	am := history.Message{ID: history.NewID(), Role: "assistant", Created: time.Now()}
	var req reply.Request
	complete := get[bool](vm.CompleteText)
	host := vm.toolHost(complete)
	if s.SystemPrompt != "" && !complete {
		req.Messages = append(req.Messages, reply.Message{Role: "system", Content: s.SystemPrompt})
	}
	saver.Update(func(c *history.Conversation) {
		if complete { // a base model continues the last message's text, nothing else
			if n := len(c.Messages); n > 0 {
				req.Prompt = &reply.Prompt{Text: c.Messages[n-1].Content}
			}
		} else {
			for _, m := range c.Messages {
				if host != nil { // the calls the reply made, as the model saw them
					req.Messages = append(req.Messages, toolMessages(m)...)
				}
				req.Messages = append(req.Messages, reply.Message{Role: m.Role, Content: m.Content, Thinking: m.Thinking})
			}
			if vm.deps.Files != nil && len(c.Attachments) > 0 {
				req.Attachments = vm.deps.Files.Requests(c.ID, c.Attachments)
			}
		}
		req.ConversationID = c.ID
		c.Messages = append(c.Messages, am)
	})
	req.Thinking = !complete && get[bool](vm.Thinking)
	req.MaxTokens = s.MaxTokens
	req.NoLookup = !s.PromptLookup
	req.Sampling = reply.Sampling{
		Temperature: &s.Temperature, TopP: &s.TopP, TopK: &s.TopK,
		RepetitionPenalty: &s.RepetitionPenalty,
	}

	mvm := newMessageVMIn(am, complete)
	_ = mvm.Streaming.Set(true)
	_ = mvm.ThinkingOpen.Set(true)
	_ = mvm.Status.Set("Starting…")
	_ = vm.Messages.Append(mvm)
	_ = vm.Generating.Set(true)
	_ = vm.Error.Set("")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	vm.mu.Lock()
	vm.cancel, vm.done = cancel, done
	vm.mu.Unlock()

	if host != nil {
		go vm.replyWithTools(ctx, host, req, saver, mvm, done) // starting servers takes time
		return
	}
	ch, err := vm.deps.Engine.Generate(ctx, req)
	if err != nil {
		go func() {
			defer close(done)
			vm.finish(saver, mvm, &reply.Summary{FinishReason: reply.FinishError, Err: err}, done)
		}()
		return
	}
	go vm.consume(ctx, ch, saver, mvm, done)
}

// consume runs on the stream goroutine: it gathers events and flushes them to the message at
// most once per FlushEvery, so the UI cost per second is bounded whatever the token rate.
func (vm *ChatVM) consume(ctx context.Context, ch <-chan reply.Event, saver Autosaver, mvm *MessageVM, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(vm.FlushEvery)
	defer tick.Stop()
	var text, think strings.Builder
	answering := false
	// The status line ("Starting…", a load's steps) counts the seconds after the first while
	// it is the stream's last word (loadclock.go). Any other event ends the count: the words
	// are then the reply's, or the tool loop's, which sets the status line itself.
	start := time.Now()
	status, _ := mvm.Status.Get()
	flush := func() {
		if think.Len() == 0 && text.Len() == 0 {
			return
		}
		if think.Len() > 0 {
			if th, _ := mvm.HasThinking.Get(); !th {
				_ = mvm.HasThinking.Set(true)
				_ = mvm.Status.Set("")
			}
			mvm.Thinking.Append(think.String())
			think.Reset()
		}
		if text.Len() > 0 {
			if !answering {
				answering = true
				_ = mvm.Status.Set("")
				_ = mvm.ThinkingOpen.Set(false)
			}
			mvm.Answer.Append(text.String())
			text.Reset()
		}
		saver.Update(func(c *history.Conversation) {
			if m := findMessage(c, mvm.ID); m != nil {
				m.Content, m.Thinking = mvm.Answer.Text(), mvm.Thinking.Text()
			}
		})
		if vm.onFlush != nil {
			vm.onFlush()
		}
	}
	var sum *reply.Summary
	for sum == nil {
		select {
		case ev, ok := <-ch:
			if !ok {
				sum = reply.Ended(ctx, nil)
				break
			}
			if ev.Kind != reply.EventStatus {
				status = ""
			}
			switch ev.Kind {
			case reply.EventText:
				text.WriteString(ev.Text)
			case reply.EventThinking:
				think.WriteString(ev.Text)
			case reply.EventStatus:
				status = ev.Text
				_ = mvm.Status.Set(withSeconds(status, time.Since(start)))
			case reply.EventNotice:
				flush()
				mvm.addNote(ev.Text)
			case reply.EventDone:
				sum = reply.Ended(ctx, ev.Done)
			}
		case now := <-tick.C:
			flush()
			if status != "" {
				_ = mvm.Status.Set(withSeconds(status, now.Sub(start))) // a Set that changes nothing does nothing
			}
		}
	}
	flush()
	vm.finish(saver, mvm, sum, done)
}

// finish closes a reply: settles its text, shows its footer and stores its statistics.
// done identifies the reply: a late finish of an abandoned stream does not touch the next one.
func (vm *ChatVM) finish(saver Autosaver, mvm *MessageVM, sum *reply.Summary, done chan struct{}) {
	st := statsFrom(sum)
	mvm.Thinking.Close()
	mvm.Answer.Close()
	_ = mvm.Status.Set("")
	if sum.FinishReason == reply.FinishError {
		st.Error = actionableError(st.Error)
	}
	mvm.showStats(st)
	_ = mvm.Sources.Set(sum.Sources)
	_ = mvm.Ranking.Set(sum.Ranking)
	_ = mvm.Streaming.Set(false)
	saver.Update(func(c *history.Conversation) {
		if m := findMessage(c, mvm.ID); m != nil {
			m.Content, m.Thinking, m.Stats, m.Sources, m.Ranking = mvm.Answer.Text(), mvm.Thinking.Text(), st, sum.Sources, sum.Ranking
		}
		c.Updated = time.Now()
	})
	vm.mu.Lock()
	current := vm.done == done
	cancel := vm.cancel
	if current {
		vm.cancel = nil
	}
	vm.mu.Unlock()
	if current {
		if cancel != nil {
			cancel() // release the context
		}
		_ = vm.Generating.Set(false)
	}
	vm.listChanged()
}

func findMessage(c *history.Conversation, id string) *history.Message {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		if c.Messages[i].ID == id {
			return &c.Messages[i]
		}
	}
	return nil
}

// actionableError makes sure an engine error tells the user where to look.
func actionableError(msg string) string {
	if msg == "" {
		return "The model stopped with an error — open Settings and press Test to check the model."
	}
	if strings.Contains(strings.ToLower(msg), "settings") {
		return msg
	}
	return msg + " — open Settings (Ctrl+,) and press Test to check the model."
}
