package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"edgechat/history"
	"edgechat/reply"
)

// A reply's text can be selected as the model wrote it, by keyboard and by mouse, and the
// rendered reply comes back with Esc or Done.
func TestReplySelectText(t *testing.T) {
	const answer = "Hello! **Both**.\nLine two\n\n```go\nx := 1\n```"
	v, vm, w := newTestChatView(t, script(reply.Summary{FinishReason: "stop", Backend: "cpu", GeneratedTokens: 9}, text(answer)))
	w.Canvas().Focus(v.Composer)
	v.Composer.SetText("hi")
	v.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	waitIdle(t, vm)
	b := v.bubbles[messages(vm)[1]]
	clip := fyne.CurrentApp().Clipboard()

	// Ctrl+C on the focused reply copies it whole; Enter selects.
	w.Canvas().Focus(b.reply.frame)
	b.reply.frame.TypedShortcut(&fyne.ShortcutCopy{Clipboard: clip})
	if got := clip.Content(); got != answer {
		t.Errorf("Ctrl+C on the reply copied %q", got)
	}
	b.reply.frame.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	s := b.reply.sel
	if !b.reply.selecting() || b.reply.frame.Visible() {
		t.Fatal("Enter on the focused reply did not show its text for selecting")
	}
	if s.text != answer || w.Canvas().Focused() != s {
		t.Errorf("selecting %q (focused: %v), want the reply as written with the keyboard in it", s.text, w.Canvas().Focused() == s)
	}
	clip.SetContent("")
	s.TypedShortcut(&fyne.ShortcutSelectAll{})
	s.TypedShortcut(&fyne.ShortcutCopy{Clipboard: clip})
	if got := clip.Content(); got != answer {
		t.Errorf("Ctrl+A, Ctrl+C copied %q, want %q", got, answer)
	}
	s.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if b.reply.selecting() || !b.reply.frame.Visible() || w.Canvas().Focused() != b.reply.frame {
		t.Error("Esc did not bring back the rendered reply with the keyboard on it")
	}
	if vm.Error != nil && get[string](vm.Error) != "" {
		t.Errorf("chat error %q", get[string](vm.Error))
	}

	// Double-click, then Done.
	b.reply.frame.DoubleTapped(&fyne.PointEvent{})
	if !b.reply.selecting() {
		t.Fatal("a double-click did not show the text for selecting")
	}
	done := visibleButton(b.reply.box, "Done")
	if done == nil {
		t.Fatal("no Done button while selecting")
	}
	test.Tap(done)
	if b.reply.selecting() {
		t.Error("Done did not bring back the rendered reply")
	}

	// The footer's Copy still copies the whole reply.
	clip.SetContent("")
	test.Tap(b.copyBtn)
	if got := clip.Content(); got != answer {
		t.Errorf("Copy copied %q", got)
	}
}

// Selecting a reply that is still streaming follows its text.
func TestReplySelectTextFollowsStream(t *testing.T) {
	test.NewTempApp(t)
	m := newMessageVM(history.Message{Role: "assistant"})
	b := newBubble(m, nil, nil)
	test.NewTempWindow(t, b.content)
	m.Answer.Append("Hello")
	b.reply.start(false)
	m.Answer.Append(" world")
	if got := b.reply.sel.text; got != "Hello world" {
		t.Errorf("selecting while streaming shows %q", got)
	}
	b.reply.done()
	m.Answer.Append("!")
	if got := b.reply.sel.text; got != "Hello world" {
		t.Errorf("after Done the hidden text still follows the stream: %q", got)
	}
	b.reply.start(true)
	if got := b.reply.sel.Selected(); got != "Hello world!" {
		t.Errorf("selecting again selected %q", got)
	}

	// The reasoning can be selected the same way.
	m.Thinking.Append("Let me *think*")
	b.thought.frame.TypedShortcut(&fyne.ShortcutSelectAll{})
	if got := b.thought.sel.Selected(); got != "Let me *think*" || b.reply.sel.Selected() != "Hello world!" {
		t.Errorf("Ctrl+A on the reasoning selected %q", got)
	}
	b.close()
}

// Ctrl+Shift+A selects the text of the last reply, from anywhere in the window.
func TestShortcutSelectLastReply(t *testing.T) {
	m := chatWindow(t, "Plan a trip")
	m.ShowSettings()
	press(m, fyne.KeyA, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift)
	items := messages(m.Chat)
	b := m.ChatView.bubbles[items[len(items)-1]]
	if m.right.Objects[0] != m.ChatView.Content || !b.reply.selecting() || m.Window.Canvas().Focused() != b.reply.sel {
		t.Error("Ctrl+Shift+A did not show the chat with the last reply's text selectable")
	}
	b.reply.sel.TypedShortcut(&fyne.ShortcutSelectAll{})
	if got := b.reply.sel.Selected(); got != "ok" {
		t.Errorf("selected %q", got)
	}
	// Keys the text does not use are the window's: Ctrl+N still starts a new chat.
	b.reply.sel.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault})
	if n := len(messages(m.Chat)); n != 0 {
		t.Errorf("Ctrl+N in the selected text: %d messages shown, want a new chat", n)
	}
}
