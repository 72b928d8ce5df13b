package grammar

import (
	"encoding/binary"
	"errors"
	"math"
	"sync"
)

// Masks makes the token masks of one grammar over one vocabulary and keeps them by grammar
// state, so that a state seen before (the inside of a string, the start of a value) costs a
// map lookup. It is safe for concurrent use; Matchers share it.
type Masks struct {
	g *Grammar
	v *Vocab

	mu      sync.Mutex
	byState map[string][]uint64
}

// maxCachedMasks bounds the masks kept (each is vocab/8 bytes: 19 KB for 151,936 tokens).
const maxCachedMasks = 1024

// NewMasks prepares the masks of g over v.
func NewMasks(g *Grammar, v *Vocab) *Masks {
	return &Masks{g: g, v: v, byState: map[string][]uint64{}}
}

// Matcher follows one output through the grammar. It is owned by one goroutine.
type Matcher struct {
	ms  *Masks
	cur stackSet
	w   walker
	key []byte
}

// Matcher starts an output at the grammar's root value.
func (ms *Masks) Matcher() *Matcher {
	m := &Matcher{ms: ms}
	m.cur.frames = append(m.cur.frames, frame{n: ms.g.root, mode: mValue})
	m.cur.end = append(m.cur.end, 1)
	m.w.init(ms)
	return m
}

// ErrRefused is Accept's error for a token the grammar does not allow here.
var ErrRefused = errors.New("the token breaks the grammar")

// Accept advances past token id.
func (m *Matcher) Accept(id int) error {
	b := m.ms.v.Bytes(id)
	if b == nil {
		return ErrRefused
	}
	return m.AcceptBytes(b)
}

// AcceptBytes advances past bytes; on error the matcher is unchanged.
func (m *Matcher) AcceptBytes(bs []byte) error {
	var a, b stackSet
	a.copyFrom(&m.cur)
	for _, c := range bs {
		if !m.ms.g.advance(&b, &a, c) {
			return ErrRefused
		}
		a, b = b, a
	}
	m.cur = a
	return nil
}

// CanEnd reports whether the output may end here (the value is complete).
func (m *Matcher) CanEnd() bool {
	for i := range m.cur.end {
		st := m.cur.stack(i)
		switch {
		case len(st) == 0:
			return true
		case len(st) == 1 && st[0].mode == mNumber && numberDone(st[0].st):
			return true
		case len(st) == 1 && st[0].mode == mLiteral && st[0].n.lits.nodes[st[0].cnt].term >= 0:
			return true
		}
	}
	return false
}

// Done reports whether the value is complete and nothing may follow it.
func (m *Matcher) Done() bool {
	for i := range m.cur.end {
		if len(m.cur.stack(i)) > 0 {
			return false
		}
	}
	return true
}

// Completion returns the shortest bytes that complete the value from here.
func (m *Matcher) Completion() []byte { return m.ms.g.completion(&m.cur) }

// Restore sets the matcher's state to o's (a matcher of the same Masks).
func (m *Matcher) Restore(o *Matcher) { m.cur.copyFrom(&o.cur) }

// CompletionAfter returns how many bytes the shortest completion has after bs, or false when
// the grammar refuses bs; the matcher is unchanged.
func (m *Matcher) CompletionAfter(bs []byte) (int, bool) {
	var a, b stackSet
	a.copyFrom(&m.cur)
	for _, c := range bs {
		if !m.ms.g.advance(&b, &a, c) {
			return 0, false
		}
		a, b = b, a
	}
	return len(m.ms.g.completion(&a)), true
}

// Mask returns the tokens that may come next, one bit per id (read-only: shared). The end of
// the output is not among them: ask CanEnd.
func (m *Matcher) Mask() []uint64 {
	m.key = stateKey(m.key[:0], &m.cur)
	ms := m.ms
	ms.mu.Lock()
	mask, ok := ms.byState[string(m.key)]
	ms.mu.Unlock()
	if ok {
		return mask
	}
	mask = m.w.mask(&m.cur)
	ms.mu.Lock()
	if len(ms.byState) >= maxCachedMasks {
		clear(ms.byState)
	}
	ms.byState[string(m.key)] = mask
	ms.mu.Unlock()
	return mask
}

// stateKey serializes a state; equal states have equal keys.
func stateKey(out []byte, s *stackSet) []byte {
	for i := range s.end {
		st := s.stack(i)
		out = binary.AppendUvarint(out, uint64(len(st)))
		for _, f := range st {
			out = binary.AppendUvarint(out, uint64(f.n.id))
			out = append(out, byte(f.mode), f.st, f.ws, f.u, f.lo, f.hi)
			out = binary.AppendVarint(out, int64(f.cnt))
			out = binary.AppendVarint(out, int64(f.key))
			out = binary.AppendUvarint(out, f.seen)
		}
	}
	return out
}

// Allowed reports whether id is in mask.
func Allowed(mask []uint64, id int) bool {
	return id >= 0 && id>>6 < len(mask) && mask[id>>6]&(1<<(id&63)) != 0
}

// Apply sets the logits of the tokens mask refuses to -Inf, except those in keep (the end
// tokens when the output may end).
func Apply(logits []float32, mask []uint64, keep ...int) {
	ninf := float32(math.Inf(-1))
	saved := make([]float32, len(keep))
	for i, id := range keep {
		saved[i] = logits[id]
	}
	for w, bits := range mask {
		if bits == ^uint64(0) {
			continue
		}
		base := w << 6
		end := min(base+64, len(logits))
		if bits == 0 {
			for i := base; i < end; i++ {
				logits[i] = ninf
			}
			continue
		}
		for i := base; i < end; i++ {
			if bits&(1<<(i-base)) == 0 {
				logits[i] = ninf
			}
		}
	}
	for i := len(mask) << 6; i < len(logits); i++ {
		logits[i] = ninf
	}
	for i, id := range keep {
		logits[id] = saved[i]
	}
}
