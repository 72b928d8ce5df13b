package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"edgechat/history"
	"edgechat/models"
	"edgechat/reply"
)

// ErrLoading is returned by Send and Regenerate while the model is loading.
var ErrLoading = errors.New("the model is still loading — your message stays in the box; send it once the header shows the model")

// loadState is the model load in progress. Its mutex also orders the load's final bindings
// against the start of the next load.
type loadState struct {
	mu     sync.Mutex
	seq    int // the current load; an older one's results are dropped
	cancel context.CancelFunc
	done   chan struct{} // closed when the current load's goroutine ends
}

// RefreshModel names the model that answers in the header and sets CompleteText (after the
// settings or the Models view changed the model). A load in progress keeps its progress.
func (vm *ChatVM) RefreshModel() {
	vm.RefreshMode()
	if vm.deps.Models == nil || get[bool](vm.ModelLoading) {
		return
	}
	_ = vm.ModelMissing.Set(false)
	_ = vm.ModelLabel.Set(vm.currentLabel())
}

func (vm *ChatVM) currentLabel() string {
	return headerLabel(vm.deps.Models.Current(), get[bool](vm.CompleteText))
}

// Choices are the models the picker offers (nil without a ModelSwitch).
func (vm *ChatVM) Choices() []ModelChoice {
	if vm.deps.Models == nil {
		return nil
	}
	return vm.deps.Models.Choices()
}

// CurrentModel is the model that answers now ("" path without a ModelSwitch).
func (vm *ChatVM) CurrentModel() ModelChoice {
	if vm.deps.Models == nil {
		return ModelChoice{}
	}
	return vm.deps.Models.Current()
}

// ChooseModel makes c the model of the open conversation and of new ones, and loads it in
// the background with its progress in the header.
func (vm *ChatVM) ChooseModel(c ModelChoice) error {
	if vm.deps.Models == nil {
		return errors.New("models cannot be changed here")
	}
	if vm.busy() {
		err := errors.New("a reply is being written — press Stop (Esc) before changing the model")
		_ = vm.Error.Set(err.Error())
		return err
	}
	if err := vm.switchTo(c); err != nil {
		return err
	}
	if vm.saver != nil {
		vm.saver.Update(vm.stamp)
	}
	return nil
}

// switchTo makes c the model that answers and starts loading it.
func (vm *ChatVM) switchTo(c ModelChoice) error {
	if err := vm.deps.Models.Use(c); err != nil {
		_ = vm.Error.Set(err.Error())
		return err
	}
	_ = vm.Error.Set("")
	vm.RefreshMode()
	_ = vm.ModelMissing.Set(false)
	vm.LoadModel()
	return nil
}

// LoadModel loads the model that answers on a goroutine of its own, the header showing what
// the engine reports ("Qwen3-0.6B: Loading the model for the CPU…") and, after the first,
// the seconds it has taken (loadclock.go); Send waits
// until it is done. A load started before is dropped (the engine closes its model).
func (vm *ChatVM) LoadModel() {
	if vm.deps.Models == nil {
		return
	}
	cur := vm.deps.Models.Current()
	final := vm.currentLabel()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	vm.load.mu.Lock()
	if vm.load.cancel != nil {
		vm.load.cancel()
	}
	vm.load.seq++
	seq := vm.load.seq
	vm.load.cancel, vm.load.done = cancel, done
	_ = vm.ModelLoading.Set(true)
	_ = vm.ModelLabel.Set("Loading " + cur.Name + "…")
	vm.load.mu.Unlock()
	clock := newLoadClock(cur.Name)
	go func() {
		defer close(done)
		defer cancel()
		show := func(label string) {
			detail := clock.detail()
			vm.ifCurrentLoad(seq, func() {
				_ = vm.ModelDetail.Set(detail)
				_ = vm.ModelLabel.Set(label)
			})
		}
		stop := make(chan struct{})
		stopped := clock.run(stop, show)
		err := vm.deps.Models.Load(ctx, func(status string) {
			clock.say(status)
			show(clock.label(time.Now()))
		})
		close(stop)
		<-stopped
		vm.ifCurrentLoad(seq, func() {
			vm.load.cancel = nil
			if get[string](vm.Error) == ErrLoading.Error() {
				_ = vm.Error.Set("") // the message waiting in the box can go now
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				final = cur.Name + " · not loaded"
				_ = vm.ModelMissing.Set(true)
				_ = vm.Error.Set(fmt.Sprintf("Could not load %s: %v. Choose another model from the menu at the top of the chat (or open Models from it); this conversation is kept.", cur.Name, err))
			}
			_ = vm.ModelDetail.Set("")
			_ = vm.ModelLabel.Set(final)
			_ = vm.ModelLoading.Set(false)
		})
	}()
}

// ifCurrentLoad runs f while load seq is the current one.
func (vm *ChatVM) ifCurrentLoad(seq int, f func()) {
	vm.load.mu.Lock()
	defer vm.load.mu.Unlock()
	if vm.load.seq == seq {
		f()
	}
}

// loadingLabel is the header while name loads: the name and the engine's words in a few
// (reply.ShortStatus: "qwen3 · preparing for this PC 45%"), the name once when they say it.
func loadingLabel(name, status string) string {
	return withModelName(name, reply.ShortStatus(status), " · ")
}

// loadingDetail is the engine's full sentence with the name ("qwen3: Loading the model for
// the CPU: starting ONNX Runtime (step 2 of 2)"): the header's tip while name loads.
func loadingDetail(name, status string) string {
	return withModelName(name, strings.TrimSpace(status), ": ")
}

// withModelName puts name before status with sep, once: a status that names the model
// stands alone, and no status says the model is loading.
func withModelName(name, status, sep string) string {
	switch {
	case status == "":
		return "Loading " + name + "…"
	case strings.Contains(status, name):
		return status
	}
	return name + sep + status
}

// waitLoad waits for the current load's goroutine, if any (tests, Close).
func (vm *ChatVM) waitLoad() {
	vm.load.mu.Lock()
	done := vm.load.done
	vm.load.mu.Unlock()
	if done != nil {
		<-done
	}
}

func (vm *ChatVM) loading() bool { return get[bool](vm.ModelLoading) }

// stamp records in c the model it goes on with and how (chat or complete text).
func (vm *ChatVM) stamp(c *history.Conversation) {
	if vm.deps.Models == nil {
		return
	}
	cur := vm.deps.Models.Current()
	c.Model, c.Device, c.Mode = cur.Path, cur.Device, history.ModeChat
	if get[bool](vm.CompleteText) {
		c.Mode = history.ModeComplete
	}
}

// openModel goes on with the model c was written with: loads it when it is not the one
// that answers, or says that it is gone and leaves the choice to the picker. A conversation
// saved before models were kept goes on with the model that answers.
func (vm *ChatVM) openModel(c *history.Conversation) {
	if vm.deps.Models == nil {
		return
	}
	if get[bool](vm.ModelMissing) {
		vm.RefreshModel()
	}
	cur := vm.deps.Models.Current()
	if c.Model == "" || c.Model == cur.Path {
		return
	}
	name := models.DisplayName(c.Model)
	if _, err := os.Stat(c.Model); err != nil {
		how := ""
		if c.Mode == history.ModeComplete {
			how = " (a base model, completing text)"
		}
		_ = vm.ModelMissing.Set(true)
		_ = vm.ModelLabel.Set(name + " is not on this PC — choose a model")
		_ = vm.Error.Set(fmt.Sprintf("This conversation was written with %s%s, which is no longer on this PC (%s). Choose a model from the menu at the top of the chat to go on; until then %s answers. Nothing of the conversation is lost.", name, how, c.Model, cur.Name))
		return
	}
	device := c.Device
	if device != "npu" {
		device = "cpu"
	}
	_ = vm.switchTo(ModelChoice{Path: c.Model, Name: name, Device: device})
}
