package ui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2/data/binding"

	"edgechat/config"
	"edgechat/history"
)

// NewChatTitle is the title of a conversation before its first message names it.
const NewChatTitle = "New chat"

// ErrBusy is returned when a reply is still streaming.
var ErrBusy = errors.New("a reply is still being written — press Stop (Esc) first")

// ChatDeps is what a ChatVM needs from the rest of the app.
type ChatDeps struct {
	Engine Engine
	Store  Conversations
	// NewSaver opens an autosaver for a conversation (history.Store.NewAutosaver, ≈1 s).
	NewSaver func(*history.Conversation) Autosaver
	// Settings returns the current settings (sampling, system prompt, max tokens).
	Settings func() config.Settings
	// Rescue writes a conversation that could not be saved somewhere else and returns where
	// (history.Rescue when nil).
	Rescue func(*history.Conversation) (string, error)
	// Files keeps attached files (nil: no attachments).
	Files AttachmentFiles
	// BaseModel reports whether the model that answers is a base model, one with no chat
	// template: the window then completes text instead of chatting (nil: never).
	BaseModel func() bool
	// Tools returns the host of the MCP servers' tools, or nil while the user has added none
	// (tools are off until then). nil: never.
	Tools func() ToolHost
	// Models changes the model that answers: the header's picker (nil: no picker, and
	// conversations do not record their model).
	Models ModelSwitch
}

// ChatVM is the view model of the open conversation: its transcript, the composer draft and
// the reply being streamed. Methods are called from the main goroutine; one stream goroutine
// per reply consumes engine events, coalescing them into at most one update per FlushEvery.
type ChatVM struct {
	Messages   binding.List[*MessageVM]
	Title      binding.String
	CurrentID  binding.String // ID of the open conversation, "" before the first message
	Draft      binding.String
	Generating binding.Bool
	Thinking   binding.Bool // ask for Qwen3's reasoning
	// CompleteText is set while the model is a base model: each message is a raw prompt the
	// reply continues, with no roles, system prompt or history.
	CompleteText binding.Bool
	Error        binding.String
	// SaveProblem says why the open conversation is not saved and what to do; "" while
	// saving works.
	SaveProblem binding.String
	// Attachments are the open conversation's files (attachvm.go).
	Attachments binding.List[*AttachmentVM]
	// ModelLabel names the model that answers in the header, or what its load is doing;
	// ModelLoading is set while it loads (Send waits); ModelMissing while the open
	// conversation's model is gone or failed to load (chatmodel.go).
	// ModelDetail is a load's full sentence while it loads, "" otherwise: the header's
	// label is its few words (loadclock.go).
	ModelLabel   binding.String
	ModelDetail  binding.String
	ModelLoading binding.Bool
	ModelMissing binding.Bool

	// OnListChanged is called, from any goroutine, when a conversation was created or its
	// title or order changed (the sidebar reloads).
	OnListChanged func()
	// FlushEvery bounds how often streamed text reaches the bindings (default 16 ms).
	FlushEvery time.Duration
	// ApprovalTimeout is how long a tool call waits for the user (DefaultApprovalTimeout).
	ApprovalTimeout time.Duration

	deps ChatDeps
	// onFlush, when set (tests), runs on the stream goroutine after each flush.
	onFlush func()
	// onApproval, when set (tests), runs on the stream goroutine once a tool call shows its
	// approval buttons.
	onApproval func(*ToolCallVM)
	// onIndexed, when set (tests), runs after an attachment was read or failed.
	onIndexed func(*AttachmentVM)
	att       attachState
	load      loadState

	mu            sync.Mutex
	alwaysAllowed map[string]bool // tools the user allowed for this session
	saver         Autosaver       // owns the open conversation: read and change it only through Update
	cancel        context.CancelFunc
	done          chan struct{} // closed when the current stream goroutine returns
}

// NewChatVM returns a view model showing an empty new chat.
func NewChatVM(deps ChatDeps) *ChatVM {
	vm := &ChatVM{
		Messages:     binding.NewList(func(a, b *MessageVM) bool { return a == b }),
		Title:        binding.NewString(),
		CurrentID:    binding.NewString(),
		Draft:        binding.NewString(),
		Generating:   binding.NewBool(),
		Thinking:     binding.NewBool(),
		CompleteText: binding.NewBool(),
		Error:        binding.NewString(),
		SaveProblem:  binding.NewString(),
		FlushEvery:   time.Second / 60,
		Attachments:  binding.NewList(func(a, b *AttachmentVM) bool { return a == b }),
		ModelLabel:   binding.NewString(),
		ModelDetail:  binding.NewString(),
		ModelLoading: binding.NewBool(),
		ModelMissing: binding.NewBool(),
		deps:         deps,
	}
	_ = vm.Title.Set(NewChatTitle)
	if deps.Settings != nil {
		_ = vm.Thinking.Set(deps.Settings().Thinking)
	}
	vm.RefreshModel()
	return vm
}

// RefreshMode asks whether the model is a base model and sets CompleteText (after the
// settings changed the model).
func (vm *ChatVM) RefreshMode() {
	_ = vm.CompleteText.Set(vm.deps.BaseModel != nil && vm.deps.BaseModel())
}

// SendDraft sends the composer's text.
func (vm *ChatVM) SendDraft() error {
	d, _ := vm.Draft.Get()
	return vm.Send(d)
}

// Send adds a user message and streams the reply to it.
func (vm *ChatVM) Send(text string) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	if vm.busy() {
		return ErrBusy
	}
	if vm.loading() {
		return ErrLoading
	}
	now := time.Now()
	um := history.Message{ID: history.NewID(), Role: "user", Content: text, Created: now}
	if vm.saver == nil {
		vm.startConversation(titleFrom(text), um)
	} else {
		vm.saver.Update(func(c *history.Conversation) {
			c.Messages = append(c.Messages, um)
			c.Updated = now
			vm.stamp(c) // the model that answers this message
		})
	}
	if get[bool](vm.ModelMissing) {
		vm.RefreshModel() // the conversation goes on with the model that answers
	}
	_ = vm.Messages.Append(newMessageVM(um))
	_ = vm.Draft.Set("")
	vm.listChanged()
	vm.startReply()
	return nil
}

// Stop cancels the reply being streamed, if any.
func (vm *ChatVM) Stop() {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if vm.cancel != nil {
		vm.cancel()
	}
}

// Regenerate replaces the last reply with a new one.
func (vm *ChatVM) Regenerate() error {
	if vm.busy() {
		return ErrBusy
	}
	if vm.loading() {
		return ErrLoading
	}
	if vm.saver == nil || !vm.CanRegenerate() {
		return errors.New("there is no reply to regenerate yet")
	}
	items, _ := vm.Messages.Get()
	vm.truncate(len(items) - 1)
	vm.startReply()
	return nil
}

// CanRegenerate reports whether Regenerate has a reply to replace now.
func (vm *ChatVM) CanRegenerate() bool {
	items, _ := vm.Messages.Get()
	return !vm.busy() && len(items) > 0 && items[len(items)-1].Role == "assistant"
}

// CanEditLast reports whether EditLast has a message of the user's to take back now.
func (vm *ChatVM) CanEditLast() bool { return !vm.busy() && vm.lastUser() >= 0 }

// lastUser returns the index of the last user message, or -1.
func (vm *ChatVM) lastUser() int {
	items, _ := vm.Messages.Get()
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Role == "user" {
			return i
		}
	}
	return -1
}

// EditLast takes the last user message back into the composer, removing it and the reply
// after it; sending the draft resends it.
func (vm *ChatVM) EditLast() error {
	if vm.busy() {
		return ErrBusy
	}
	i := vm.lastUser()
	if i < 0 {
		return errors.New("there is no message of yours to edit yet")
	}
	items, _ := vm.Messages.Get()
	text := items[i].Text()
	vm.truncate(i)
	return vm.Draft.Set(text)
}

// NewChat closes the open conversation and shows an empty one; it is saved on first send.
func (vm *ChatVM) NewChat() {
	_ = vm.Error.Set("") // before closing: closing may report a conversation it could not save
	vm.closeConversation()
	_ = vm.Messages.Set(nil)
	vm.showAttachments(nil)
	_ = vm.Title.Set(NewChatTitle)
	_ = vm.CurrentID.Set("")
	if get[bool](vm.ModelMissing) {
		vm.RefreshModel() // a new chat goes on with the model that answers
	}
}

// Open shows the stored conversation id.
func (vm *ChatVM) Open(id string) error {
	if cur, _ := vm.CurrentID.Get(); cur == id && id != "" {
		return nil
	}
	c, err := vm.deps.Store.Load(id)
	if err != nil {
		err = fmt.Errorf("could not open the conversation: %w", err)
		_ = vm.Error.Set(err.Error())
		return err
	}
	_ = vm.Error.Set("")
	vm.closeConversation()
	vms := make([]*MessageVM, len(c.Messages))
	for i, m := range c.Messages {
		vms[i] = newMessageVMIn(m, c.Mode == history.ModeComplete)
	}
	vm.openSaver(c)
	vm.showMessages(vms)
	vm.showAttachments(c)
	_ = vm.Title.Set(c.Title)
	_ = vm.CurrentID.Set(c.ID)
	vm.openModel(c)
	return nil
}

// showMessages replaces the transcript. A list binding tells its listeners only about a
// change of length, so another conversation of the same length would keep the bubbles of the
// one before: empty the list first, then fill it.
func (vm *ChatVM) showMessages(vms []*MessageVM) {
	_ = vm.Messages.Set(nil)
	_ = vm.Messages.Set(vms)
}

// Rename retitles the open conversation and reports whether id is the open one.
func (vm *ChatVM) Rename(id, title string) bool {
	if cur, _ := vm.CurrentID.Get(); cur != id || vm.saver == nil {
		return false
	}
	vm.saver.Update(func(c *history.Conversation) { c.Title = title })
	_ = vm.Title.Set(title)
	// Write now rather than within the autosave interval, so the sidebar lists the new title.
	if err := vm.deps.Store.Save(vm.Snapshot()); err != nil {
		_ = vm.Error.Set("could not save the new title: " + err.Error())
	}
	return true
}

// Snapshot returns a copy of the open conversation (nil before the first message).
func (vm *ChatVM) Snapshot() *history.Conversation {
	if vm.saver == nil {
		return nil
	}
	var cp history.Conversation
	vm.saver.Update(func(c *history.Conversation) {
		cp = *c
		cp.Messages = append([]history.Message(nil), c.Messages...)
	})
	return &cp
}

// Close stops the reply and a model load, and writes what is pending; call it when the
// window closes.
func (vm *ChatVM) Close() {
	vm.load.mu.Lock()
	if vm.load.cancel != nil {
		vm.load.cancel()
	}
	vm.load.mu.Unlock()
	vm.closeConversation()
}

func (vm *ChatVM) busy() bool {
	g, _ := vm.Generating.Get()
	return g
}

func (vm *ChatVM) listChanged() {
	if vm.OnListChanged != nil {
		vm.OnListChanged()
	}
}

// startConversation creates the conversation with its first message and stores both in one
// save: a crash right after Enter leaves either nothing or the titled conversation with its
// message, never a title without it. When the save fails the conversation goes on in memory,
// the autosaver retries, and SaveProblem says so.
func (vm *ChatVM) startConversation(title string, first history.Message) {
	c := history.NewConversation(title)
	c.Messages = append(c.Messages, first)
	vm.stamp(c)
	err := vm.deps.Store.Save(c)
	saver := vm.openSaver(c)
	vm.saveResult(saver, err)
	if err != nil {
		saver.Update(func(*history.Conversation) {}) // schedules the retry
	}
	_ = vm.CurrentID.Set(c.ID)
	_ = vm.Title.Set(title)
}

// ensureConversation opens a new, empty conversation named title when none is open, and the
// sidebar lists it: attaching a file before the first message does this. Unlike a first message, nothing is lost when
// this save fails, so the failure is reported and nothing is opened.
func (vm *ChatVM) ensureConversation(title string) error {
	if vm.saver != nil {
		return nil
	}
	c := history.NewConversation(title)
	vm.stamp(c)
	if err := vm.deps.Store.Save(c); err != nil {
		err = fmt.Errorf("could not save the new conversation (check the data folder in Settings): %w", err)
		_ = vm.Error.Set(err.Error())
		return err
	}
	vm.openSaver(c)
	_ = vm.CurrentID.Set(c.ID)
	_ = vm.Title.Set(title)
	// The chat has a name and content (the file): the sidebar lists it now, as chat apps do
	// with a chat that has something in it, rather than after the first message.
	vm.listChanged()
	return nil
}

// openSaver makes c the open conversation, saved by a new autosaver whose results reach
// SaveProblem.
func (vm *ChatVM) openSaver(c *history.Conversation) Autosaver {
	saver := vm.deps.NewSaver(c)
	saver.Notify(func(err error) { vm.saveResult(saver, err) })
	vm.mu.Lock()
	vm.saver = saver
	vm.mu.Unlock()
	_ = vm.SaveProblem.Set("")
	return saver
}

// saveResult shows the result of a save of saver's conversation, if it is still the open one.
// It runs on any goroutine.
func (vm *ChatVM) saveResult(saver Autosaver, err error) {
	vm.mu.Lock()
	current := vm.saver == saver
	vm.mu.Unlock()
	if !current {
		return
	}
	if err == nil {
		_ = vm.SaveProblem.Set("")
		return
	}
	_ = vm.SaveProblem.Set("Not saved: " + err.Error() + ". This conversation is kept in memory while EdgeChat runs and saving is retried every second; use Export to keep a copy elsewhere.")
}

// closeConversation stops the stream, waits briefly for it and closes the autosaver. A
// conversation whose last save failed is written elsewhere (Rescue) and Error says where.
func (vm *ChatVM) closeConversation() {
	vm.Stop()
	vm.att.stop()
	vm.mu.Lock()
	done, saver := vm.done, vm.saver
	vm.saver = nil
	vm.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-time.After(3 * time.Second):
		}
	}
	_ = vm.SaveProblem.Set("")
	if saver == nil {
		return
	}
	err := saver.Close()
	if err == nil {
		return
	}
	var c history.Conversation
	saver.Update(func(open *history.Conversation) { // after Close: one more try, and a copy
		c = *open
		c.Messages = slices.Clone(open.Messages)
	})
	rescue := vm.deps.Rescue
	if rescue == nil {
		rescue = history.Rescue
	}
	path, rerr := rescue(&c)
	msg := fmt.Sprintf("“%s” could not be saved (%v). ", c.Title, err)
	if rerr != nil {
		msg += fmt.Sprintf("No copy could be written elsewhere either (%v): its messages are lost.", rerr)
		slog.Error("conversation lost", "conversation", c.ID, "save", err, "rescue", rerr)
	} else {
		msg += "A copy is in " + path + " — move it into the data folder once saving works again."
		slog.Warn("conversation rescued", "conversation", c.ID, "path", path, "save", err)
	}
	_ = vm.Error.Set(msg)
}

// truncate keeps the first n messages.
func (vm *ChatVM) truncate(n int) {
	items, _ := vm.Messages.Get()
	vm.saver.Update(func(c *history.Conversation) {
		if n < len(c.Messages) {
			c.Messages = c.Messages[:n]
		}
	})
	_ = vm.Messages.Set(items[:n])
}

// titleFrom names a conversation after the first line of its first message.
func titleFrom(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	const max = 48
	if utf8.RuneCountInString(line) <= max {
		return line
	}
	r := []rune(line)
	return strings.TrimSpace(string(r[:max])) + "…"
}
