package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2/data/binding"

	"edgechat/history"
)

// AttachmentVM is one file attached to the open conversation, as its chip above the composer
// shows it. Status is "" when the file is ready, progress while it is read and indexed, why
// it cannot be read (then Failed is set), or, read, what of it was left unread (a PDF's
// scanned pages) and how to have it read.
type AttachmentVM struct {
	history.Attachment
	Status binding.String
	Failed binding.Bool
	// stop cancels its reading (Detach); main goroutine only.
	stop context.CancelFunc
	// scan is set when it failed as a scanned PDF, or left scanned pages unread, which other
	// settings may read.
	scan atomic.Bool
}

func newAttachmentVM(a history.Attachment) *AttachmentVM {
	return &AttachmentVM{Attachment: a, Status: binding.NewString(), Failed: binding.NewBool()}
}

// attachState runs the indexing goroutines of the open conversation's attachments; they
// stop when it closes.
type attachState struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	ctx    context.Context
}

func (s *attachState) context() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		s.ctx, s.cancel = context.WithCancel(context.Background())
	}
	return s.ctx
}

// stop cancels the indexing of the conversation being closed.
func (s *attachState) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
	s.ctx, s.cancel = nil, nil
}

// CanAttach reports whether attachments are available (the app was given a place for them).
func (vm *ChatVM) CanAttach() bool { return vm.deps.Files != nil }

// AttachExtensions are the file name endings the file dialog offers: those the documents
// reader reads by their name (none without a store).
func (vm *ChatVM) AttachExtensions() []string {
	if vm.deps.Files == nil {
		return nil
	}
	return vm.deps.Files.Extensions()
}

// Attach copies files into the open conversation (creating it, named after the first file,
// when there is none yet) and starts reading them in the background. Files that cannot be
// attached are reported together; the others are attached.
func (vm *ChatVM) Attach(paths ...string) error {
	if len(paths) == 0 {
		return nil
	}
	if vm.deps.Files == nil {
		return errors.New("attachments are not available here")
	}
	if err := vm.ensureConversation(filepath.Base(paths[0])); err != nil {
		return err
	}
	id := get[string](vm.CurrentID)
	var errs []error
	for _, p := range paths {
		a, err := vm.deps.Files.Add(id, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		vm.saver.Update(func(c *history.Conversation) { c.Attachments = append(c.Attachments, a) })
		avm := newAttachmentVM(a)
		_ = vm.Attachments.Append(avm)
		vm.index(id, avm)
	}
	err := errors.Join(errs...)
	if err != nil {
		_ = vm.Error.Set(err.Error())
	}
	return err
}

// Detach removes an attachment from the open conversation and deletes its copy. Replies
// already given keep their sources.
func (vm *ChatVM) Detach(a *AttachmentVM) error {
	if vm.busy() {
		return ErrBusy
	}
	if vm.saver == nil || vm.deps.Files == nil {
		return nil
	}
	vm.saver.Update(func(c *history.Conversation) {
		for i, x := range c.Attachments {
			if x.File == a.File {
				c.Attachments = append(c.Attachments[:i:i], c.Attachments[i+1:]...)
				break
			}
		}
	})
	_ = vm.Attachments.Remove(a)
	if a.stop != nil {
		a.stop() // a scan being recognized, a long file being read
	}
	if err := vm.deps.Files.Remove(get[string](vm.CurrentID), a.Attachment); err != nil {
		err = fmt.Errorf("could not delete the copy of %s: %w", a.Name, err)
		_ = vm.Error.Set(err.Error())
		return err
	}
	return nil
}

// showAttachments lists the attachments of c (nil: none) and checks that each can be read.
func (vm *ChatVM) showAttachments(c *history.Conversation) {
	vm.att.stop()
	var vms []*AttachmentVM
	if c != nil {
		for _, a := range c.Attachments {
			avm := newAttachmentVM(a)
			vms = append(vms, avm)
			if vm.deps.Files != nil {
				vm.index(c.ID, avm)
			}
		}
	}
	_ = vm.Attachments.Set(vms)
}

// index reads and indexes an attachment on its own goroutine, reporting to its Status.
func (vm *ChatVM) index(id string, a *AttachmentVM) {
	ctx, stop := context.WithCancel(vm.att.context())
	if a.stop != nil {
		a.stop()
	}
	a.stop = stop
	_ = a.Status.Set("Reading…")
	go func() {
		defer stop()
		note, err := vm.deps.Files.Index(ctx, id, a.Attachment, func(msg string) { _ = a.Status.Set(msg) })
		switch {
		case ctx.Err() != nil:
		case err != nil:
			a.scan.Store(errors.As(err, new(interface{ Scan() bool })))
			_ = a.Failed.Set(true)
			_ = a.Status.Set(err.Error())
		default:
			a.scan.Store(note != "")
			_ = a.Status.Set(note)
		}
		if vm.onIndexed != nil {
			vm.onIndexed(a)
		}
	}()
}
