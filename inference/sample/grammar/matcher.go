package grammar

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"sync"
)

func popcount(w uint64) int      { return bits.OnesCount64(w) }
func trailingZeros(w uint64) int { return bits.TrailingZeros64(w) }

// Masks makes the token masks of one grammar over one vocabulary and keeps them by grammar
// state, so that a state seen before (the inside of a string, the start of a value) costs a
// map lookup. It is safe for concurrent use; Matchers share it.
type Masks struct {
	g *Grammar
	v *Vocab

	mu      sync.Mutex
	byState map[string]Mask
}

// maxCachedMasks bounds the masks kept (each is vocab/8 bytes: 19 KB for 151,936 tokens).
const maxCachedMasks = 1024

// NewMasks prepares the masks of g over v.
func NewMasks(g *Grammar, v *Vocab) *Masks {
	return &Masks{g: g, v: v, byState: map[string]Mask{}}
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

// Done reports whether the value is complete and nothing may follow it: every way here has
// finished its value, or ends in a top-level number that has reached its limits ("38E472",
// an integer "0").
func (m *Matcher) Done() bool {
	for i := range m.cur.end {
		st := m.cur.stack(i)
		if len(st) > 1 || len(st) == 1 && (st[0].mode != mNumber || !numberDone(st[0].st) || !numberFull(st[0])) {
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

// Mask returns the tokens that may come next (read-only: shared). The end of the output is
// not among them: ask CanEnd.
func (m *Matcher) Mask() Mask {
	m.key = stateKey(m.key[:0], &m.cur)
	ms := m.ms
	ms.mu.Lock()
	mask, ok := ms.byState[string(m.key)]
	ms.mu.Unlock()
	if ok {
		return mask
	}
	mask = newMask(m.w.mask(&m.cur), ms.v.size)
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

// Mask is the set of tokens allowed in one state: a bit per id, and the ids themselves when
// they are few (a fraction of the vocabulary), so that applying it costs what it allows.
type Mask struct {
	bits []uint64
	ids  []int32 // the allowed ids, when few
	off  []int32 // the refused ids, when few
}

// sparseShare: a mask allowing fewer than this share of the vocabulary keeps its ids.
const sparseShare = 16

func newMask(bits []uint64, size int) Mask {
	n := 0
	for _, w := range bits {
		n += popcount(w)
	}
	m := Mask{bits: bits}
	switch {
	case n < size/sparseShare:
		m.ids = make([]int32, 0, n)
		for w, bitsW := range bits {
			for bitsW != 0 {
				m.ids = append(m.ids, int32(w<<6+trailingZeros(bitsW)))
				bitsW &= bitsW - 1
			}
		}
	case size-n < size/sparseShare:
		m.off = make([]int32, 0, size-n)
		for w, bitsW := range bits {
			for zeros := ^bitsW; zeros != 0; zeros &= zeros - 1 {
				if id := w<<6 + trailingZeros(zeros); id < size {
					m.off = append(m.off, int32(id))
				}
			}
		}
	}
	return m
}

// Allows reports whether id is allowed.
func (k Mask) Allows(id int) bool {
	return id >= 0 && id>>6 < len(k.bits) && k.bits[id>>6]&(1<<(id&63)) != 0
}

// Allowed reports whether id is in mask.
func Allowed(mask Mask, id int) bool { return mask.Allows(id) }

// Masker applies masks to logits for one sampler. A mask that allows few tokens copies their
// logits into a buffer of -Inf kept between steps (only the entries written are reset); one
// that allows most sets the others to -Inf in place. Either way the cost follows the smaller
// side, not the vocabulary. One goroutine owns a Masker.
type Masker struct {
	buf     []float32
	written []int32
}

// Apply returns logits restricted to mask and keep (ids allowed besides it: the end tokens);
// the result is logits itself (changed in place) or the Masker's buffer, valid until the
// next Apply.
func (mk *Masker) Apply(logits []float32, mask Mask, keep ...int) []float32 {
	ninf := float32(math.Inf(-1))
	if len(mk.buf) != len(logits) {
		mk.buf = make([]float32, len(logits))
		for i := range mk.buf {
			mk.buf[i] = ninf
		}
		mk.written = mk.written[:0]
	}
	for _, id := range mk.written {
		mk.buf[id] = ninf
	}
	mk.written = mk.written[:0]
	if mask.bits == nil || mask.ids != nil {
		for _, id := range mask.ids {
			if int(id) < len(logits) {
				mk.buf[id] = logits[id]
				mk.written = append(mk.written, id)
			}
		}
		for _, id := range keep {
			mk.buf[id] = logits[id]
			mk.written = append(mk.written, int32(id))
		}
		return mk.buf
	}
	saved := make([]float32, len(keep))
	for i, id := range keep {
		saved[i] = logits[id]
	}
	if mask.off != nil {
		for _, id := range mask.off {
			logits[id] = ninf
		}
	} else {
		for w, bits := range mask.bits {
			for zeros := ^bits; zeros != 0; zeros &= zeros - 1 {
				if i := w<<6 + trailingZeros(zeros); i < len(logits) {
					logits[i] = ninf
				}
			}
		}
	}
	for i := len(mask.bits) << 6; i < len(logits); i++ {
		logits[i] = ninf
	}
	for i, id := range keep {
		logits[id] = saved[i]
	}
	return logits
}

// Apply sets the logits of the tokens mask refuses to -Inf, except those in keep.
func Apply(logits []float32, mask Mask, keep ...int) {
	var mk Masker
	out := mk.Apply(logits, mask, keep...)
	if &out[0] != &logits[0] {
		copy(logits, out)
	}
}
