package ui

import (
	"strings"
	"testing"

	"edgechat/reply"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"edgechat/history"
)

var longParagraph = strings.Repeat("The prefill reads the whole prompt once and then the decode loop writes one token per step. ", 6)

// savedConversation stores a conversation several times taller than the window.
func savedConversation(t testing.TB, st *memStore) string {
	t.Helper()
	c := history.NewConversation("Saved")
	for i := 0; i < 4; i++ {
		c.Messages = append(c.Messages,
			history.Message{ID: history.NewID(), Role: "user", Content: "Question " + longParagraph[:60]},
			history.Message{
				ID: history.NewID(), Role: "assistant", Thinking: "Let me think.",
				Content: longParagraph + "\n\n" + longParagraph + "\n\n```go\nfor step := 0; step < max; step++ {\n\tid := sample(logits)\n}\n```\n\n" + longParagraph,
				Stats:   &history.Stats{Backend: "npu", Tokens: 120, TokensPerSec: 20, FinishReason: "stop"},
			})
	}
	if err := st.Save(c); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// belowEnd says how far the end of the transcript is from the bottom of the view: 0 when the
// view shows exactly its end, > 0 when the end is below the fold, < 0 when the view is
// scrolled past the end (a blank gap under the last message).
func belowEnd(v *ChatView) float32 {
	return v.scroll.Content.MinSize().Height - v.scroll.Size().Height - v.scroll.Offset.Y
}

func TestChatViewFollowsToTheFooter(t *testing.T) {
	v, vm, _ := newTestChatView(t, script(reply.Summary{FinishReason: "length", Backend: "npu", GeneratedTokens: 300},
		text(longParagraph+"\n\n"), text(longParagraph+"\n\n"), text(longParagraph+"\n\n"), text(longParagraph)))
	_ = vm.Send("Explain the decode loop")
	waitIdle(t, vm)
	b := v.bubbles[messages(vm)[1]]
	if !b.footer.Visible() || !b.notes.Visible() {
		t.Fatalf("footer visible %v, notes visible %v after the reply, want both", b.footer.Visible(), b.notes.Visible())
	}
	if v.scroll.Content.MinSize().Height <= v.scroll.Size().Height {
		t.Fatal("the transcript fits the view; the test needs a longer reply")
	}
	if got := belowEnd(v); got < -0.5 || got > 0.5 {
		t.Errorf("the end of the last reply is %v px below the fold, want 0", got)
	}
}

// On the desktop driver binding listeners run later, through fyne.Do; bubbles were measured
// before their listeners hid the status row and empty labels, the view scrolled that far
// and Scroll kept the offset when the transcript got shorter.
func TestChatViewOpenTallConversationEndsAtBottom(t *testing.T) {
	vm, _, st := newTestChat(t, nil)
	d := newQueuedApp(t)
	id := savedConversation(t, st)
	w := test.NewTempWindow(t, nil)
	v := NewChatView(vm, w, func() {})
	w.SetContent(v.Content)
	w.Resize(fyne.NewSize(700, 600))
	d.run()
	frame(w)
	if err := vm.Open(id); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		d.run()
		frame(w)
		if got := belowEnd(v); got < -0.5 || got > 0.5 {
			t.Errorf("frame %d after opening: the end of the transcript is %v px below the fold, want 0", i, got)
		}
	}
}

func TestChatViewWheelOverCodeScrollsTranscript(t *testing.T) {
	for _, code := range []string{"ls -l", "echo " + strings.Repeat("wide ", 60)} {
		t.Run(code[:5], func(t *testing.T) {
			vm, _, st := newTestChat(t, nil)
			c := history.NewConversation("Code")
			c.Messages = []history.Message{
				{ID: "u", Role: "user", Content: "How?"},
				{ID: "a", Role: "assistant", Content: longParagraph + "\n\n```sh\n" + code + "\n```\n\n" + longParagraph + "\n\n" + longParagraph},
			}
			_ = st.Save(c)
			w := test.NewTempWindow(t, nil)
			v := NewChatView(vm, w, func() {})
			w.SetContent(v.Content)
			w.Resize(fyne.NewSize(700, 400))
			if err := vm.Open(c.ID); err != nil {
				t.Fatal(err)
			}
			var block *codeBlock
			for _, o := range v.bubbles[messages(vm)[1]].answer.blocks.Objects {
				if cb, ok := o.(*frozen).content.(*codeBlock); ok {
					block = cb
				}
			}
			if block == nil {
				t.Fatal("no code block rendered")
			}
			d := fyne.CurrentApp().Driver()
			top := d.AbsolutePositionForObject(block).Y - d.AbsolutePositionForObject(v.scroll.Content).Y
			v.scroll.ScrollToOffset(fyne.NewPos(0, top-40))
			v.follow = false
			before := v.scroll.Offset.Y
			pointer := d.AbsolutePositionForObject(block.scroll).AddXY(20, 10)

			test.Scroll(w.Canvas(), pointer, 0, -30)
			if got := v.scroll.Offset.Y - before; got != 30 {
				t.Errorf("the wheel over the code scrolled the transcript by %v, want 30", got)
			}
			if block.scroll.Offset.X != 0 {
				t.Errorf("the vertical wheel scrolled the code sideways to %v", block.scroll.Offset.X)
			}
			test.Scroll(w.Canvas(), d.AbsolutePositionForObject(block.scroll).AddXY(20, 10), -25, 0)
			wide := block.text.MinSize().Width > block.scroll.Size().Width
			if moved := block.scroll.Offset.X != 0; moved != wide {
				t.Errorf("sideways wheel: code scrolled %v, want %v (code wider than the view: %v)", moved, wide, wide)
			}
		})
	}
}

// A bubble shows its state as soon as it is built, not only when its listeners first run
// (a frame later on the desktop driver): no footer under a reply being written, no empty
// progress row under a finished one.
func TestBubbleIsBuiltInItsState(t *testing.T) {
	streaming := func() *MessageVM {
		m := newMessageVM(history.Message{ID: "a", Role: "assistant"})
		_ = m.Streaming.Set(true)
		_ = m.Status.Set("Loading model…")
		return m
	}
	finished := func() *MessageVM {
		return newMessageVM(history.Message{ID: "b", Role: "assistant", Content: "Done.",
			Stats: &history.Stats{Backend: "cpu", Tokens: 2, FinishReason: "stop"}})
	}
	tests := []struct {
		name                                      string
		msg                                       func() *MessageVM
		status, footer, errLabel, notes, thinking bool
		statusText                                string
	}{
		{name: "streaming", msg: streaming, status: true, statusText: "Loading model…"},
		{name: "finished", msg: finished, footer: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			test.NewTempApp(t)
			m := tt.msg()
			d := newQueuedApp(t) // from here on listeners wait for d.run
			b := newBubble(m, nil, nil)
			check := func(when string) {
				t.Helper()
				for _, c := range []struct {
					name      string
					got, want bool
				}{
					{"status row", b.status.Visible(), tt.status},
					{"footer", b.footer.Visible(), tt.footer},
					{"error", b.errLabel.Visible(), tt.errLabel},
					{"notes", b.notes.Visible(), tt.notes},
					{"thinking", b.thinkToggle.Visible() && b.thinkBody.Visible(), tt.thinking},
				} {
					if c.got != c.want {
						t.Errorf("%s: %s visible = %v, want %v", when, c.name, c.got, c.want)
					}
				}
				if got := b.statusLabel.Text; got != tt.statusText {
					t.Errorf("%s: status = %q, want %q", when, got, tt.statusText)
				}
			}
			check("when built")
			d.run()
			check("after the listeners ran")
		})
	}
}

func TestChatViewActionsNeedSomethingToActOn(t *testing.T) {
	started := make(chan struct{})
	v, vm, _ := newTestChatView(t, blockingGen(started))
	flushed := make(chan struct{}, 1)
	vm.onFlush = func() {
		select {
		case flushed <- struct{}{}:
		default:
		}
	}
	enabled := func(when string, want bool) {
		t.Helper()
		if got := !v.Regenerate.Disabled(); got != want {
			t.Errorf("%s: Regenerate enabled = %v, want %v", when, got, want)
		}
		if got := !v.EditLast.Disabled(); got != want {
			t.Errorf("%s: Edit last enabled = %v, want %v", when, got, want)
		}
	}
	enabled("new chat", false)
	_ = vm.Send("hi")
	<-started
	<-flushed
	enabled("while generating", false)
	vm.Stop()
	waitIdle(t, vm)
	enabled("after the reply", true)
	test.Tap(v.EditLast)
	enabled("after taking the only message back", false)
	vm.NewChat()
	enabled("new chat again", false)
}

func TestCodeBlockNoBlankLineUnderLanguage(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	c := newCodeBlock(Block{Kind: BlockCode, Lang: "go", Text: "for i := 0; i < 3; i++ {\n\tfmt.Println(i)\n}"}, nil)
	w.SetContent(c)
	w.Resize(fyne.NewSize(500, 300))
	d := fyne.CurrentApp().Driver()
	pad := theme.InnerPadding()
	langBottom := d.AbsolutePositionForObject(c.lang).Y + pad + fyne.MeasureText("go", theme.CaptionTextSize(), c.lang.TextStyle).Height
	codeTop := d.AbsolutePositionForObject(c.text).Y + pad
	line := fyne.MeasureText("M", theme.TextSize(), fyne.TextStyle{Monospace: true}).Height
	if gap := codeTop - langBottom; gap >= line {
		t.Errorf("%v px between the language and the code, want less than a line (%v px)", gap, line)
	}
	if c.MinSize().Height > c.scroll.MinSize().Height+c.copy.MinSize().Height {
		t.Errorf("code block is %v tall, want at most the code and the head", c.MinSize().Height)
	}
}

// When the view gets shorter under a transcript shown at its end (the Complete text notice
// appears above it after a switch to a base model, a banner below it), it stays at its end:
// the view kept its offset and the last reply's footer went below the fold.
func TestChatViewStaysAtEndWhenTheViewShrinks(t *testing.T) {
	vm, _, st := newTestChat(t, nil)
	d := newQueuedApp(t)
	id := savedConversation(t, st)
	w := test.NewTempWindow(t, nil)
	v := NewChatView(vm, w, func() {})
	w.SetContent(v.Content)
	w.Resize(fyne.NewSize(700, 600))
	d.run()
	frame(w)
	if err := vm.Open(id); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		d.run()
		frame(w)
	}
	before := v.scroll.Size().Height
	_ = vm.CompleteText.Set(true) // the notice shows above the transcript
	d.run()
	// The window lays out what changed at its next frame: the border gives the view less
	// height (Scroll keeps its offset), with no new layout of the transcript.
	c := v.Content.(*fyne.Container)
	c.Layout.Layout(c.Objects, c.Size())
	if v.scroll.Size().Height >= before {
		t.Fatalf("the view is %v tall, was %v: the notice did not take room", v.scroll.Size().Height, before)
	}
	if got := belowEnd(v); got < -1 || got > 1 {
		t.Errorf("the end of the transcript is %v below the fold after the view shrank, want 0", got)
	}
}

// Send is enabled only with something to send (an empty composer's Send looked ready and did
// nothing); Stop is always enabled.
func TestSendNeedsText(t *testing.T) {
	v, vm, _ := newTestChatView(t, script(reply.Summary{FinishReason: "stop", Backend: "cpu"}, text("ok")))
	if !v.SendButton.Disabled() {
		t.Error("Send enabled with an empty composer")
	}
	test.Type(v.Composer, "  ")
	if !v.SendButton.Disabled() {
		t.Error("Send enabled with only spaces")
	}
	test.Type(v.Composer, "Hi")
	if v.SendButton.Disabled() {
		t.Error("Send disabled with text to send")
	}
	v.send()
	waitIdle(t, vm)
	if get[string](vm.Draft) != "" || !v.SendButton.Disabled() {
		t.Errorf("after sending: draft %q, Send disabled %v", get[string](vm.Draft), v.SendButton.Disabled())
	}
}
