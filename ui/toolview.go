package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// toolCallsRow shows the tools a reply called, one card each, above its answer.
func (b *bubble) toolCallsRow() fyne.CanvasObject {
	m := b.msg
	list := container.NewVBox()
	b.on(m.ToolCalls, func() {
		calls, _ := m.ToolCalls.Get()
		added := false
		for i := len(list.Objects); i < len(calls); i++ {
			list.Add(b.toolCard(calls[i]))
			added = true
		}
		b.show(list, len(calls) > 0)
		if added {
			b.grow()
		}
	})
	return list
}

// toolCard is one call: the tool, its server and state, the arguments, the approval buttons
// while it waits, then its result and time.
func (b *bubble) toolCard(t *ToolCallVM) fyne.CanvasObject {
	title := widget.NewLabel(fmt.Sprintf("Tool %s (MCP server %s)", t.Name, t.Server))
	title.TextStyle = fyne.TextStyle{Bold: true}
	state := b.label(t.State)
	state.TextStyle = fyne.TextStyle{Italic: true}
	took := b.label(t.Took)
	took.SizeName = theme.SizeNameCaptionText
	args := widget.NewLabel(t.Arguments)
	args.TextStyle = fyne.TextStyle{Monospace: true}
	args.Wrapping = fyne.TextWrapBreak
	args.Selectable = true
	result := b.label(t.Result)
	result.Wrapping = fyne.TextWrapWord
	result.Selectable = true
	b.on(t.Result, func() { b.show(result, get[string](t.Result) != ""); b.grow() })
	b.on(t.Took, b.grow)

	allow := widget.NewButtonWithIcon("Allow once", theme.ConfirmIcon(), func() { t.Decide(AllowOnce) })
	allow.Importance = widget.HighImportance
	always := widget.NewButton("Always for this tool", func() { t.Decide(AllowAlways) })
	deny := widget.NewButtonWithIcon("Deny", theme.CancelIcon(), func() { t.Decide(Deny) })
	deny.Importance = widget.DangerImportance
	buttons := container.NewHBox(allow, always, deny)
	b.on(t.Pending, func() { b.show(buttons, get[bool](t.Pending)) })

	bg := newThemedRect(theme.ColorNameInputBackground, theme.InputRadiusSize())
	body := container.NewVBox(container.NewHBox(title, state, took), args, buttons, result)
	return container.NewStack(bg, container.NewPadded(body))
}

// grow re-follows the transcript after the bubble changed size.
func (b *bubble) grow() {
	if b.onGrow != nil {
		b.onGrow()
	}
}
