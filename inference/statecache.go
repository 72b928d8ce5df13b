package inference

import (
	"container/list"

	"edgechat/internal/host"
)

// stateCache keeps saved caches of recent conversations, least recently used evicted first,
// within a byte budget. One route's goroutine owns it.
type stateCache struct {
	budget int64
	used   int64
	order  *list.List // of *stateEntry, most recent at the front
	byID   map[string]*list.Element
}

type stateEntry struct {
	id    string
	state State
	size  int64
}

func newStateCache(budget int64) *stateCache {
	return &stateCache{budget: budget, order: list.New(), byID: map[string]*list.Element{}}
}

// put saves a conversation's state, evicting the oldest ones to stay within the budget.
// A state larger than the whole budget is not kept.
func (c *stateCache) put(id string, st State, size int64) {
	c.remove(id)
	if size > c.budget {
		return
	}
	for c.used+size > c.budget && c.order.Len() > 0 {
		c.removeElem(c.order.Back())
	}
	c.byID[id] = c.order.PushFront(&stateEntry{id: id, state: st, size: size})
	c.used += size
}

// take removes and returns a conversation's state.
func (c *stateCache) take(id string) (State, bool) {
	e, ok := c.byID[id]
	if !ok {
		return nil, false
	}
	st := e.Value.(*stateEntry).state
	c.removeElem(e)
	return st, true
}

func (c *stateCache) remove(id string) {
	if e, ok := c.byID[id]; ok {
		c.removeElem(e)
	}
}

func (c *stateCache) removeElem(e *list.Element) {
	en := e.Value.(*stateEntry)
	delete(c.byID, en.id)
	c.used -= en.size
	c.order.Remove(e)
}

// DefaultStateBudget sizes the saved-conversation caches by memory: an eighth of RAM, at most
// 2 GiB (a 0.6B model's fp32 cache is ~0.23 MB per token, so 2 GiB keeps ~9k tokens).
func DefaultStateBudget() int64 {
	total := host.PhysicalMemory()
	if total <= 0 {
		return 1 << 30
	}
	return min(total/8, 2<<30)
}
