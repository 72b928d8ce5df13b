package reply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrNoSummary is the error of a stream that closed without its EventDone: the producer
// broke its contract (a crash, a dropped connection it did not report).
var ErrNoSummary = errors.New("the reply ended without a summary")

// Emit sends ev unless ctx is done; it reports whether it was sent.
func Emit(ctx context.Context, out chan<- Event, ev Event) bool {
	select {
	case out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// SendFinal delivers the last event of a stream (for every producer of Events): a consumer
// that cancelled usually still drains the channel to see how the reply ended, so wait briefly
// for room before giving up.
func SendFinal(ctx context.Context, out chan<- Event, ev Event) {
	if ctx.Err() == nil {
		select {
		case out <- ev:
			return
		case <-ctx.Done():
		}
	}
	select {
	case out <- ev:
	case <-time.After(time.Second):
	}
}

// ErrBrokenToolCall is the error of a stream whose tool call parts came out of order.
var ErrBrokenToolCall = errors.New("the reply's tool calls arrived out of order")

// errUnexplained stands in for the error of a failed reply whose producer gave none.
var errUnexplained = errors.New("the model failed without saying why")

// Ended is the summary of a stream that has closed, by the one rule every consumer follows:
// sum when it came (a failure always with an error); without one, a cancelled reply when ctx
// was cancelled and an ErrNoSummary failure otherwise.
func Ended(ctx context.Context, sum *Summary) *Summary {
	switch {
	case sum == nil && ctx.Err() != nil:
		return &Summary{FinishReason: FinishCancelled}
	case sum == nil:
		return &Summary{FinishReason: FinishError, Err: ErrNoSummary}
	case sum.FinishReason == FinishError && sum.Err == nil:
		sum.Err = errUnexplained
	}
	return sum
}

// Collected is a whole reply read from a stream.
type Collected struct {
	Text, Thinking string
	// Notices are the notice events' texts, in order.
	Notices []string
	// ToolCalls are the calls the reply made, assembled from its EventToolCall parts.
	ToolCalls []ToolCall
	Summary   *Summary
}

// Collect reads a stream to its end. The summary is never nil (see Ended).
func Collect(ctx context.Context, ch <-chan Event) Collected {
	var text, thinking strings.Builder
	var c Collected
	var calls ToolCalls
	var broken error
	for ev := range ch {
		switch ev.Kind {
		case EventText:
			text.WriteString(ev.Text)
		case EventThinking:
			thinking.WriteString(ev.Text)
		case EventNotice:
			c.Notices = append(c.Notices, ev.Text)
		case EventToolCall:
			if ev.Tool != nil && broken == nil {
				if err := calls.Add(*ev.Tool); err != nil {
					broken = fmt.Errorf("%w: %v", ErrBrokenToolCall, err)
				}
			}
		case EventDone:
			c.Summary = ev.Done
		}
	}
	if broken != nil {
		c.Summary = &Summary{FinishReason: FinishError, Err: broken}
	}
	c.Text, c.Thinking, c.Summary = text.String(), thinking.String(), Ended(ctx, c.Summary)
	if cs := calls.Calls(); len(cs) > 0 {
		c.ToolCalls = cs
	}
	return c
}
