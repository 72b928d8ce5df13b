package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"edgechat/history"
)

// Sidebar shows a SidebarVM: new chat, search, the conversation list and the undo bar.
type Sidebar struct {
	binder
	vm      *SidebarVM
	win     fyne.Window
	List    *widget.List
	Search  *widget.Entry
	New     *widget.Button
	UndoBtn *widget.Button
	Content fyne.CanvasObject

	currentID string
}

// NewSidebar builds the sidebar; onOpen opens a conversation, onNew starts a new chat.
func NewSidebar(vm *SidebarVM, win fyne.Window, onOpen func(id string), onNew func()) *Sidebar {
	s := &Sidebar{vm: vm, win: win}
	s.New = widget.NewButtonWithIcon("New chat", theme.ContentAddIcon(), onNew)
	s.New.Importance = widget.HighImportance
	s.Search = widget.NewEntryWithData(vm.Query)
	s.Search.Validator = nil
	s.Search.SetPlaceHolder("Search titles and messages")
	s.Search.ActionItem = widget.NewIcon(theme.SearchIcon())

	s.List = widget.NewList(
		func() int { return len(get[[]history.Summary](vm.Items)) },
		s.newRow,
		func(i widget.ListItemID, o fyne.CanvasObject) { s.updateRow(i, o) },
	)
	s.List.OnSelected = func(i widget.ListItemID) {
		if items := get[[]history.Summary](vm.Items); i < len(items) && items[i].ID != s.currentID {
			onOpen(items[i].ID)
		}
	}
	s.on(vm.Items, func() {
		s.List.Refresh()
		s.selectCurrent()
	})

	undoLabel := widget.NewLabelWithData(vm.Undo)
	undoLabel.Truncation = fyne.TextTruncateEllipsis
	s.UndoBtn = widget.NewButton("Undo", func() { _ = vm.UndoDelete() })
	dismiss := newTipButton(theme.CancelIcon(), "Dismiss", vm.DismissUndo)
	dismiss.Importance = widget.LowImportance
	undoBar := container.NewBorder(nil, nil, nil, container.NewHBox(s.UndoBtn, dismiss), undoLabel)
	s.on(vm.Undo, func() { showIf(undoBar, get[string](vm.Undo) != "") })

	errLabel := widget.NewLabelWithData(vm.Error)
	errLabel.Wrapping = fyne.TextWrapWord
	errLabel.Importance = widget.DangerImportance
	s.on(vm.Error, func() { showIf(errLabel, get[string](vm.Error) != "") })

	top := container.NewVBox(s.New, s.Search)
	s.Content = borderInReadingOrder(top, container.NewVBox(errLabel, undoBar), nil, nil, s.List)
	return s
}

// SetCurrent highlights the open conversation ("" for none).
func (s *Sidebar) SetCurrent(id string) {
	s.currentID = id
	s.selectCurrent()
}

func (s *Sidebar) selectCurrent() {
	for i, it := range get[[]history.Summary](s.vm.Items) {
		if it.ID == s.currentID {
			s.List.Select(i)
			return
		}
	}
	s.List.UnselectAll()
}

// sidebarRow is one conversation in the list: its title, rename and delete.
type sidebarRow struct {
	widget.BaseWidget
	title          *widget.Label
	rename, delete *tipButton
	id             string
}

func (s *Sidebar) newRow() fyne.CanvasObject {
	r := &sidebarRow{title: widget.NewLabel("Conversation title")}
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.rename = newTipButton(theme.DocumentCreateIcon(), "Rename chat", func() { s.askRename(r.id, r.title.Text) })
	r.delete = newTipButton(theme.DeleteIcon(), "Delete chat", func() { _ = s.vm.Delete(r.id) })
	r.rename.Importance, r.delete.Importance = widget.LowImportance, widget.LowImportance
	r.ExtendBaseWidget(r)
	return r
}

func (r *sidebarRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewBorder(nil, nil, nil, container.NewHBox(r.rename, r.delete), r.title))
}

func (s *Sidebar) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	items := get[[]history.Summary](s.vm.Items)
	r, ok := o.(*sidebarRow)
	if i >= len(items) || !ok {
		return
	}
	r.id = items[i].ID
	r.title.SetText(items[i].Title)
}

func (s *Sidebar) askRename(id, old string) {
	e := widget.NewEntry()
	e.SetText(old)
	d := dialog.NewForm("Rename conversation", "Rename", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Title", e)}, func(ok bool) {
			if ok {
				if err := s.vm.Rename(id, e.Text); err != nil {
					dialog.ShowError(err, s.win)
				}
			}
		}, s.win)
	d.Resize(fyne.NewSize(420, 160))
	d.Show()
	s.win.Canvas().Focus(e)
}
