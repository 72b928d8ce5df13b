package chat

import (
	"errors"
	"fmt"
)

// ErrTooLong is returned by Fit when even the system prompt and the last user turn leave no
// room for the reply. The wrapped message says by how much.
var ErrTooLong = errors.New("the message is too long for the model's context")

// Fit drops the oldest turns of msgs until countTokens(kept) + reserve <= limit, and returns
// the kept messages and how many messages it dropped.
//
// A turn is a user message with the assistant (and tool) messages that answer it; turns go
// whole. A leading system message is always kept, and so are the last user message and
// everything after it. countTokens renders and tokenizes a conversation; Fit calls it about
// log2(turns)+2 times, assuming that dropping more turns never makes the prompt longer.
//
// When even the protected messages do not fit, Fit returns them with an error that wraps
// ErrTooLong.
func Fit(msgs []Message, limit, reserve int, countTokens func([]Message) (int, error)) ([]Message, int, error) {
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	head := Head(roles)
	keep := func(start int) []Message {
		kept := make([]Message, 0, head+len(msgs)-start)
		kept = append(kept, msgs[:head]...)
		return append(kept, msgs[start:]...)
	}
	start, err := FitStart(roles, limit, reserve, func(start int) (int, error) { return countTokens(keep(start)) })
	return keep(start), start - head, err
}

// Head is how many leading messages Fit always keeps: 1 when the first is a system message.
func Head(roles []string) int {
	if len(roles) > 0 && roles[0] == "system" {
		return 1
	}
	return 0
}

// FitStart is Fit over message indices, for callers that render each candidate once and keep
// it: roles are the messages' roles, and count(start) measures the conversation made of the
// first Head(roles) messages followed by the messages from start on. It returns the start of
// the kept tail: Head(roles) when nothing is dropped (also on a count error), the last user
// message with an error wrapping ErrTooLong when even that does not fit.
func FitStart(roles []string, limit, reserve int, count func(start int) (int, error)) (int, error) {
	head := Head(roles)
	// starts[k] is where the kept tail begins after dropping k turns.
	starts := turnStarts(roles, head)
	fits := func(k int) (bool, int, error) {
		n, err := count(starts[k])
		if err != nil {
			return false, 0, fmt.Errorf("count tokens: %w", err)
		}
		return n+reserve <= limit, n, nil
	}

	last := len(starts) - 1
	ok, _, err := fits(0)
	if err != nil || ok {
		return head, err
	}
	ok, n, err := fits(last)
	if err != nil {
		return head, err
	}
	if !ok {
		return starts[last], tooLong(n, reserve, limit)
	}
	// Smallest k in (0, last] that fits; fits(last) is known true.
	lo, hi := 1, last
	for lo < hi {
		mid := (lo + hi) / 2
		ok, _, err := fits(mid)
		if err != nil {
			return head, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return starts[lo], nil
}

// turnStarts returns the indices where droppable turns begin, from msgs[head:] up to the last
// user message, followed by the last user message's index (the protected tail). Messages
// before the first user message (an assistant greeting) form a turn of their own.
func turnStarts(roles []string, head int) []int {
	lastUser := -1
	for i := len(roles) - 1; i >= head; i-- {
		if roles[i] == "user" {
			lastUser = i
			break
		}
	}
	if lastUser < 0 {
		// No user message: nothing is droppable.
		return []int{head}
	}
	starts := []int{head}
	for i := head + 1; i <= lastUser; i++ {
		if roles[i] == "user" {
			starts = append(starts, i)
		}
	}
	if starts[len(starts)-1] != lastUser {
		starts = append(starts, lastUser)
	}
	return starts
}

func tooLong(tokens, reserve, limit int) error {
	if reserve >= limit {
		return fmt.Errorf("%w: %d tokens are reserved for the reply but the context holds only %d — lower the reply length or raise the context size",
			ErrTooLong, reserve, limit)
	}
	return fmt.Errorf("%w: the system prompt and your last message take %d tokens, %d reserved for the reply, but the context holds %d — shorten the message by about %d tokens, or the system prompt",
		ErrTooLong, tokens, reserve, limit, tokens+reserve-limit)
}
