package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"edgechat/config"
	"edgechat/history"
	"edgechat/reply"
)

// switchWindow is the window over a real history store of 100 conversations; the two
// returned have 20 turns each and were written with different models (so opening one switches
// the model and loads it).
func switchWindow(b testing.TB) (m *MainWindow, a, c string) {
	test.NewTempApp(b)
	root := b.TempDir()
	hs, err := history.Open(filepath.Join(root, "data"))
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	for i := range 100 {
		model := filepath.Join(root, fmt.Sprintf("model-%d", i%2))
		if err := os.MkdirAll(model, 0o755); err != nil {
			b.Fatal(err)
		}
		conv := history.NewConversation(fmt.Sprintf("Conversation %03d", i))
		conv.Model, conv.Device, conv.Mode = model, "cpu", history.ModeChat
		for j := range 20 {
			conv.Messages = append(conv.Messages,
				history.Message{ID: fmt.Sprintf("u%d", j), Role: "user", Content: "How do I read a large file line by line?"},
				history.Message{ID: fmt.Sprintf("a%d", j), Role: "assistant", Content: "Use a **bufio.Scanner**:\n\n```go\nsc := bufio.NewScanner(f)\nfor sc.Scan() {\n\tprocess(sc.Text())\n}\n```\n\n" + strings.Repeat("It reads the file in chunks and hands you one line at a time. ", 6)})
		}
		if err := hs.Save(conv); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, conv.ID)
	}
	s := config.Defaults()
	s.CPU.Model = filepath.Join(root, "model-0")
	m = New(test.NewApp(), Deps{
		Engine:   &fakeEngine{gen: script(reply.Summary{FinishReason: "stop"}, text("ok"))},
		Settings: &memSettings{s: s}, History: hs,
		NewSaver: func(c *history.Conversation) Autosaver { return hs.NewAutosaver(c, time.Second) },
	})
	m.Window.Resize(fyne.NewSize(1100, 720))
	b.Cleanup(m.Chat.Close)
	return m, ids[0], ids[1]
}

// BenchmarkOpenChat is choosing a chat in the sidebar until its newest bubbles are in the window,
// alternating between two conversations of 20 turns written with different models (each
// open switches the model; the load's goroutine is waited for outside the timing).
func BenchmarkOpenChat(b *testing.B) {
	m, a, c := switchWindow(b)
	ids := []string{a, c}
	i := 0
	for b.Loop() {
		m.open(ids[i%2])
		if len(m.ChatView.list.Objects) != firstBubbles {
			b.Fatalf("%d bubbles shown, want the newest %d first", len(m.ChatView.list.Objects), firstBubbles)
		}
		b.StopTimer()
		m.ChatView.waitOlder()
		m.Chat.waitLoad()
		i++
		b.StartTimer()
	}
}

// BenchmarkNewChat is Ctrl+N from an open conversation of 20 turns until the chat is empty.
func BenchmarkNewChat(b *testing.B) {
	m, a, _ := switchWindow(b)
	ctrlN := &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault}
	for b.Loop() {
		b.StopTimer()
		m.open(a)
		m.ChatView.waitOlder()
		m.Chat.waitLoad()
		b.StartTimer()
		m.Window.Canvas().(fyne.Shortcutable).TypedShortcut(ctrlN)
		if len(m.ChatView.list.Objects) != 0 {
			b.Fatal("Ctrl+N left the conversation shown")
		}
	}
}
