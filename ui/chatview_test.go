package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"edgechat/reply"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"edgechat/history"
)

func newTestChatView(t *testing.T, gen func(context.Context, reply.Request, chan<- reply.Event)) (*ChatView, *ChatVM, fyne.Window) {
	t.Helper()
	vm, _, _ := newTestChat(t, gen)
	w := test.NewTempWindow(t, nil)
	v := NewChatView(vm, w, func() {})
	w.SetContent(v.Content)
	w.Resize(fyne.NewSize(700, 600))
	return v, vm, w
}

func TestChatViewTypeEnterSends(t *testing.T) {
	v, vm, w := newTestChatView(t, script(reply.Summary{FinishReason: "stop", Backend: "npu", GeneratedTokens: 2},
		text("Hi **there**")))
	w.Canvas().Focus(v.Composer)
	test.Type(v.Composer, "Hello")
	v.Composer.KeyDown(&fyne.KeyEvent{Name: "LeftShift"})
	v.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) // Shift+Enter: new line
	v.Composer.KeyUp(&fyne.KeyEvent{Name: "LeftShift"})
	test.Type(v.Composer, "world")
	if got := v.Composer.Text; got != "Hello\nworld" {
		t.Fatalf("composer text = %q, want Shift+Enter to add a line", got)
	}
	v.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	waitIdle(t, vm)
	msgs := messages(vm)
	if len(msgs) != 2 || msgs[0].Text() != "Hello\nworld" {
		t.Fatalf("transcript after Enter: %d messages", len(msgs))
	}
	if v.Composer.Text != "" {
		t.Errorf("composer not cleared: %q", v.Composer.Text)
	}
	if got := len(v.list.Objects); got != 2 {
		t.Errorf("%d bubbles shown, want 2", got)
	}
	b := v.bubbles[msgs[1]]
	if got := len(b.answer.blocks.Objects); got != 1 {
		t.Errorf("answer has %d settled blocks, want 1", got)
	}
}

// On the test driver binding listeners run on the stream goroutine, so a test touches widgets
// only while that goroutine is idle: after the flush of the partial text, or after the reply.
func TestChatViewStop(t *testing.T) {
	started := make(chan struct{})
	v, vm, _ := newTestChatView(t, blockingGen(started))
	flushed := make(chan struct{}, 1)
	vm.onFlush = func() {
		select {
		case flushed <- struct{}{}:
		default:
		}
	}
	test.Type(v.Composer, "write a long story")
	test.Tap(v.SendButton)
	<-started
	<-flushed
	if v.SendButton.Text != "Stop" {
		t.Fatalf("button says %q while generating, want Stop", v.SendButton.Text)
	}
	test.Tap(v.SendButton)
	waitIdle(t, vm)
	if v.SendButton.Text != "Send" {
		t.Errorf("button says %q after stopping, want Send", v.SendButton.Text)
	}
	if got := get[string](messages(vm)[1].Notes); got != "Stopped" {
		t.Errorf("notes = %q, want Stopped", got)
	}
}

func TestChatViewEscStops(t *testing.T) {
	started := make(chan struct{})
	v, vm, _ := newTestChatView(t, blockingGen(started))
	flushed := make(chan struct{}, 1)
	vm.onFlush = func() {
		select {
		case flushed <- struct{}{}:
		default:
		}
	}
	test.Type(v.Composer, "hi")
	v.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	<-started
	<-flushed
	v.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	waitIdle(t, vm)
	if get[bool](vm.Generating) {
		t.Error("Esc did not stop the reply")
	}
}

func TestChatViewThinkingCollapses(t *testing.T) {
	v, vm, _ := newTestChatView(t, script(reply.Summary{FinishReason: "stop"}, thinking("Step one.\n\nStep two."), text("Done")))
	_ = vm.Send("think")
	waitIdle(t, vm)
	b := v.bubbles[messages(vm)[1]]
	if !b.thinkToggle.Visible() {
		t.Fatal("thinking header hidden for a reply with thinking")
	}
	if b.thinkBody.Visible() {
		t.Error("thinking body still open after the answer arrived")
	}
	test.Tap(b.thinkToggle)
	if !b.thinkBody.Visible() {
		t.Fatal("tapping the header did not open the thinking section")
	}
	if got := len(b.think.blocks.Objects); got != 2 {
		t.Errorf("thinking shows %d blocks, want 2", got)
	}
	test.Tap(b.thinkToggle)
	if b.thinkBody.Visible() {
		t.Error("tapping the header again did not collapse the thinking section")
	}
}

func TestChatViewCodeCopy(t *testing.T) {
	v, vm, _ := newTestChatView(t, script(reply.Summary{FinishReason: "stop"}, text("Run:\n\n```sh\nls -l\n```\n")))
	_ = vm.Send("how?")
	waitIdle(t, vm)
	b := v.bubbles[messages(vm)[1]]
	var code *codeBlock
	for _, o := range b.answer.blocks.Objects {
		if c, ok := o.(*frozen).content.(*codeBlock); ok {
			code = c
		}
	}
	if code == nil {
		t.Fatal("no code block rendered")
	}
	test.Tap(code.copy)
	if got := fyne.CurrentApp().Clipboard().Content(); got != "ls -l" {
		t.Errorf("clipboard = %q, want the code", got)
	}
	test.Tap(b.copyBtn)
	if got := fyne.CurrentApp().Clipboard().Content(); !strings.HasPrefix(got, "Run:") {
		t.Errorf("clipboard = %q, want the whole reply", got)
	}
}

// BenchmarkStreamUpdate measures one UI update of a streaming reply in a chat window (split,
// bindings, re-render of the open block, follow the stream) when the reply already holds N
// tokens. Each measured stretch is 200 tokens long; then the reply is rebuilt to N tokens.
func BenchmarkStreamUpdate(b *testing.B) {
	toks := benchTokens()
	for _, n := range []int{100, 4000} {
		b.Run(fmt.Sprintf("tokens=%d", n), func(b *testing.B) {
			vm, _, _ := newTestChat(b, nil)
			w := test.NewTempWindow(b, nil)
			v := NewChatView(vm, w, func() {})
			w.SetContent(v.Content)
			w.Resize(fyne.NewSize(800, 700))
			var m *MessageVM
			reset := func() {
				m = newMessageVM(history.Message{ID: "a", Role: "assistant"})
				_ = m.Streaming.Set(true)
				_ = vm.Messages.Set([]*MessageVM{newMessageVM(history.Message{ID: "u", Role: "user", Content: "Explain."}), m})
				for i := 0; i < n; i++ {
					m.Answer.Append(toks[i%len(toks)])
				}
			}
			reset()
			i := 0
			for b.Loop() {
				if i == 200 {
					b.StopTimer()
					reset()
					i = 0
					b.StartTimer()
				}
				m.Answer.Append(toks[(n+i)%len(toks)])
				i++
			}
		})
	}
}

// benchTokens is a Markdown reply with paragraphs, a list and code, cut into ~4-byte tokens.
func benchTokens() []string {
	reply := strings.Repeat(`Here is how the **prefill** and the *decode* loops share the cache. The
model reads the whole prompt once, then produces one token per step.

1. Tokenize the prompt.
2. Run prefill in chunks of 64 tokens.
3. Decode until the stop token.

`+"```go\nfor step := 0; step < max; step++ {\n\tlogits := session.Run(ids)\n\tid := sample(logits)\n}\n```"+`

That keeps the time to first token low even on the NPU.

`, 3)
	var out []string
	for len(reply) > 0 {
		k := min(4, len(reply))
		out = append(out, reply[:k])
		reply = reply[k:]
	}
	return out
}

func TestChatViewFooter(t *testing.T) {
	v, vm, w := newTestChatView(t, script(reply.Summary{
		FinishReason: "stop", Backend: "cpu", FallbackReason: "the NPU model failed to load",
		PromptTokens: 40, ReusedTokens: 12, GeneratedTokens: 5, DecodeTPS: 30,
	}, text("ok")))
	_ = vm.Send("hi")
	waitIdle(t, vm)
	m := messages(vm)[1]
	b := v.bubbles[m]
	footer := b.details // details sit under the footer row, hidden until asked for
	if footer.Visible() {
		t.Fatal("details shown before asked for")
	}
	var badgeText string
	var info *tipButton
	var tip *hoverTip
	for _, o := range b.content.(*fyne.Container).Objects {
		if row, ok := o.(*fyne.Container); ok && len(row.Objects) >= 4 {
			if h, ok := row.Objects[0].(*hoverTip); ok {
				badgeText = h.content.(*badge).text.Text
				tip = row.Objects[1].(*hoverTip)
				info = row.Objects[2].(*tipButton)
			}
		}
	}
	if badgeText != "CPU" {
		t.Errorf("badge = %q, want CPU", badgeText)
	}
	if info == nil {
		t.Fatal("footer row not found")
	}
	test.Tap(info)
	if !footer.Visible() || !strings.Contains(footer.Text, "12 reused") {
		t.Errorf("details after tapping info: visible=%v %q", footer.Visible(), footer.Text)
	}
	layer := newTipLayer()
	w.SetContent(container.NewStack(v.Content, layer))
	tip.MouseIn(nil)
	if text, owner := layer.shown(); owner != tip || !strings.Contains(text, "40 tokens") {
		t.Errorf("hovering the footer showed %q, want the details", text)
	}
	tip.MouseOut()
	if _, owner := layer.shown(); owner != nil {
		t.Error("the details stayed after the mouse left")
	}
	if got := get[string](m.Notes); !strings.Contains(got, "instead of the NPU: the NPU model failed to load") {
		t.Errorf("fallback note = %q", got)
	}
}

// BenchmarkFrameWalk imitates what the desktop driver does once per frame while anything
// changes: walk the whole window and ask every object its minimum size. Unlike one stream
// update, this does grow with the transcript (every text row is visited), but it runs at most
// once per frame, not once per token.
func BenchmarkFrameWalk(b *testing.B) {
	toks := benchTokens()
	for _, n := range []int{100, 4000} {
		b.Run(fmt.Sprintf("tokens=%d", n), func(b *testing.B) {
			vm, _, _ := newTestChat(b, nil)
			w := test.NewTempWindow(b, nil)
			v := NewChatView(vm, w, func() {})
			w.SetContent(v.Content)
			w.Resize(fyne.NewSize(800, 700))
			m := newMessageVM(history.Message{ID: "a", Role: "assistant"})
			_ = vm.Messages.Set([]*MessageVM{m})
			for i := 0; i < n; i++ {
				m.Answer.Append(toks[i%len(toks)])
			}
			for b.Loop() {
				walkMinSize(w.Content())
			}
		})
	}
}

func walkMinSize(o fyne.CanvasObject) {
	if !o.Visible() {
		return
	}
	o.MinSize()
	switch o := o.(type) {
	case *fyne.Container:
		for _, c := range o.Objects {
			walkMinSize(c)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(o).Objects() {
			walkMinSize(c)
		}
	}
}

// The user's message is shown as typed: no Markdown, line breaks kept, selectable.
func TestChatViewUserTextVerbatim(t *testing.T) {
	v, vm, w := newTestChatView(t, script(reply.Summary{FinishReason: "stop", Backend: "cpu", GeneratedTokens: 1}, text("ok")))
	const typed = "**not bold** Hello ! a_b_c\n  indented line\n\n# not a heading"
	w.Canvas().Focus(v.Composer)
	v.Composer.SetText(typed)
	v.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	waitIdle(t, vm)
	b := v.bubbles[messages(vm)[0]]
	if b.userText == nil || b.answer != nil {
		t.Fatal("the user's message is not shown as plain text")
	}
	if b.userText.text != typed {
		t.Errorf("user text %q, want %q", b.userText.text, typed)
	}
	b.userText.SelectAll()
	if got := b.userText.Selected(); got != typed {
		t.Errorf("select all of the user's text gives %q, want %q", got, typed)
	}
}
