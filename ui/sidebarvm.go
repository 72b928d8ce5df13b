package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2/data/binding"

	"edgechat/history"
)

// SidebarVM lists conversations (titles only; bodies load when one is opened), searches
// titles and contents, renames, and deletes with undo. Methods run on the main goroutine;
// Reload may be called from any goroutine.
type SidebarVM struct {
	// Items is the whole list as one value: a binding.List would re-set (and notify) every
	// item on each reload, which costs milliseconds at 500 conversations.
	Items binding.Item[[]history.Summary]
	Query binding.String
	Undo  binding.String // "Deleted “title”" while the last delete can be undone
	Error binding.String

	// RenameOpen retitles the conversation if it is the open one (the chat's autosaver owns
	// it then) and reports whether it did.
	RenameOpen func(id, title string) bool
	// CloseIfOpen is called before deleting id, so an open conversation is closed first.
	CloseIfOpen func(id string)

	store       Conversations
	lastDeleted string
}

// NewSidebarVM lists the conversations of store.
func NewSidebarVM(store Conversations) *SidebarVM {
	vm := &SidebarVM{
		Items: binding.NewItem(func(a, b []history.Summary) bool { return slices.Equal(a, b) }),
		Query: binding.NewString(),
		Undo:  binding.NewString(),
		Error: binding.NewString(),
		store: store,
	}
	vm.Query.AddListener(binding.NewDataListener(vm.Reload))
	return vm
}

// Reload lists the conversations again, filtered by Query (titles and contents).
func (vm *SidebarVM) Reload() {
	q := strings.TrimSpace(get[string](vm.Query))
	var items []history.Summary
	if q == "" {
		items = vm.store.List()
	} else {
		items = vm.store.Search(q)
	}
	_ = vm.Items.Set(items)
}

// Rename gives conversation id a new title.
func (vm *SidebarVM) Rename(id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return errors.New("a title cannot be empty — type a few words")
	}
	if vm.RenameOpen == nil || !vm.RenameOpen(id, title) {
		c, err := vm.store.Load(id)
		if err != nil {
			return vm.fail(fmt.Errorf("could not rename: %w", err))
		}
		c.Title = title
		if err := vm.store.Save(c); err != nil {
			return vm.fail(fmt.Errorf("could not rename (check the data folder in Settings): %w", err))
		}
	}
	vm.Reload()
	return nil
}

// Delete moves conversation id to the trash; UndoDelete brings it back.
func (vm *SidebarVM) Delete(id string) error {
	title := id
	for _, s := range get[[]history.Summary](vm.Items) {
		if s.ID == id {
			title = s.Title
		}
	}
	if vm.CloseIfOpen != nil {
		vm.CloseIfOpen(id)
	}
	if err := vm.store.Delete(id); err != nil {
		return vm.fail(fmt.Errorf("could not delete “%s”: %w", title, err))
	}
	vm.lastDeleted = id
	_ = vm.Undo.Set(fmt.Sprintf("Deleted “%s”", title))
	vm.Reload()
	return nil
}

// UndoDelete restores the conversation deleted last.
func (vm *SidebarVM) UndoDelete() error {
	if vm.lastDeleted == "" {
		return nil
	}
	if err := vm.store.Restore(vm.lastDeleted); err != nil {
		return vm.fail(fmt.Errorf("could not restore the conversation: %w", err))
	}
	vm.lastDeleted = ""
	_ = vm.Undo.Set("")
	vm.Reload()
	return nil
}

// DismissUndo hides the undo bar; the deleted conversation stays in the trash.
func (vm *SidebarVM) DismissUndo() {
	vm.lastDeleted = ""
	_ = vm.Undo.Set("")
}

func (vm *SidebarVM) fail(err error) error {
	_ = vm.Error.Set(err.Error())
	return err
}
