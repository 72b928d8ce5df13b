// Package demo is a stand-in engine with a canned reply, for screenshots and UI work: it is
// compiled into the app only with the demo build tag, never into release packages.
package demo

import (
	"context"
	"strings"
	"time"

	"edgechat/reply"
)

// Engine streams a canned reply with thinking, for screenshots and UI work only
// (edgechat --demo-engine, in builds with the demo tag). It behaves like the real engine: status first, ~40 tokens/s, stops on ctx.
type Engine struct{}

const demoThinking = `The user asks how the NPU route works. I should explain prefill and decode briefly, ` +
	`mention the CPU fallback and show a short code sample.`

const demoAnswer = "EdgeChat runs the model in two phases:\n\n" +
	"1. **Prefill** reads your whole prompt in chunks on the NPU.\n" +
	"2. **Decode** then produces one token per step and streams it here.\n\n" +
	"If the NPU cannot load the model, the CPU takes over and the footer says so.\n\n" +
	"```go\nfor step := 0; step < maxTokens; step++ {\n\tid := sample(session.Run(ids))\n\tif id == eos {\n\t\tbreak\n\t}\n}\n```\n\n" +
	"Press *Stop* (Esc) at any time; the partial answer is kept."

func (Engine) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	out := make(chan reply.Event)
	go func() {
		defer close(out)
		start := time.Now()
		send := func(ev reply.Event, wait time.Duration) bool {
			select {
			case out <- ev:
			case <-ctx.Done():
				return false
			}
			select {
			case <-time.After(wait):
				return true
			case <-ctx.Done():
				return false
			}
		}
		n, ttft := 0, time.Duration(0)
		stream := func(kind reply.EventKind, text string) bool {
			for _, w := range strings.SplitAfter(text, " ") {
				if ttft == 0 {
					ttft = time.Since(start)
				}
				n++
				if !send(reply.Event{Kind: kind, Text: w}, 25*time.Millisecond) {
					return false
				}
			}
			return true
		}
		answer, thinking := demoAnswer, demoThinking
		if call, a, ok := toolStep(req); ok && call != nil {
			ok := send(reply.Event{Kind: reply.EventStatus, Text: "Loading model…"}, 300*time.Millisecond) &&
				send(reply.Event{Kind: reply.EventToolCall, Tool: &reply.ToolCallPart{Index: 0, ID: call.ID, Name: call.Name}}, 0) &&
				send(reply.Event{Kind: reply.EventToolCall, Tool: &reply.ToolCallPart{Index: 0, Arguments: string(call.Arguments)}}, 0)
			sum := &reply.Summary{FinishReason: reply.FinishToolCalls, Backend: "npu", Device: "QNN (demo)", GeneratedTokens: 14, DecodeTPS: 38.5}
			if !ok {
				sum.FinishReason = reply.FinishCancelled
			}
			reply.SendFinal(ctx, out, reply.Event{Kind: reply.EventDone, Done: sum})
			return
		} else if ok {
			answer, thinking = a, "The tool's result is in; I will quote it."
		}
		if a, ok := documentAnswer(req); ok {
			answer, thinking = a, "The passages from the attached document hold the answer; I will quote it and cite the passage."
		}
		ok := send(reply.Event{Kind: reply.EventStatus, Text: "Loading model…"}, 700*time.Millisecond) &&
			(!req.Thinking || stream(reply.EventThinking, thinking)) &&
			stream(reply.EventText, answer)
		sum := &reply.Summary{
			FinishReason: reply.FinishStop, Backend: "npu", Device: "QNN (demo)",
			PromptTokens: 40 * len(req.Messages), GeneratedTokens: n, ReusedTokens: 30 * (len(req.Messages) - 2),
			TTFT: ttft, DecodeTPS: 38.5, PrefillTPS: 410,
		}
		if sum.ReusedTokens < 0 {
			sum.ReusedTokens = 0
		}
		if !ok {
			sum.FinishReason = reply.FinishCancelled
		}
		reply.SendFinal(ctx, out, reply.Event{Kind: reply.EventDone, Done: sum})
	}()
	return out, nil
}
