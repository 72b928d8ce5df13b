package proto

import (
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// source reads a protobuf stream through an io.ReaderAt with a small window, so that walking a
// multi-gigabyte model reads only the bytes of the fields it looks at.
type source struct {
	r      io.ReaderAt
	size   int64
	win    []byte
	winOff int64
}

const windowSize = 64 << 10

// maxString bounds the strings the reader copies into memory (names, attribute values).
const maxString = 1 << 20

func (s *source) fill(off int64) error {
	n := int64(windowSize)
	if off+n > s.size {
		n = s.size - off
	}
	if n <= 0 {
		return io.ErrUnexpectedEOF
	}
	if cap(s.win) < windowSize {
		s.win = make([]byte, windowSize)
	}
	s.win = s.win[:n]
	k, err := s.r.ReadAt(s.win, off)
	if int64(k) < n {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	s.winOff = off
	return nil
}

// bytes returns n bytes at off; the slice is valid until the next call.
func (s *source) bytes(off, n int64) ([]byte, error) {
	if n < 0 || off < 0 || off+n > s.size {
		return nil, io.ErrUnexpectedEOF
	}
	if off >= s.winOff && off+n <= s.winOff+int64(len(s.win)) {
		return s.win[off-s.winOff : off-s.winOff+n], nil
	}
	if n > windowSize {
		b := make([]byte, n)
		if _, err := s.r.ReadAt(b, off); err != nil && !(errors.Is(err, io.EOF) && off+n == s.size) {
			return nil, err
		}
		return b, nil
	}
	if err := s.fill(off); err != nil {
		return nil, err
	}
	return s.win[:n], nil
}

// msg is the byte range [off, end) of one message in a source.
type msg struct {
	s        *source
	off, end int64
}

// field is one decoded field: a varint or fixed value in v, or a length-delimited payload in sub.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	sub msg
}

// parseError records where parsing failed.
type parseError struct {
	off int64
	err error
}

func (e *parseError) Error() string {
	return fmt.Sprintf("protobuf parse failed at byte %d: %v", e.off, e.err)
}
func (e *parseError) Unwrap() error { return e.err }

// next decodes the field at m.off and advances past it. It returns io.EOF at the end.
func (m *msg) next() (field, error) {
	if m.off >= m.end {
		return field{}, io.EOF
	}
	start := m.off
	fail := func(err error) (field, error) { return field{}, &parseError{off: start, err: err} }
	tag, err := m.varint()
	if err != nil {
		return fail(err)
	}
	num, typ := protowire.DecodeTag(tag)
	if num < protowire.MinValidNumber || num > protowire.MaxValidNumber {
		return fail(fmt.Errorf("invalid field number %d", num))
	}
	f := field{num: num, typ: typ}
	switch typ {
	case protowire.VarintType:
		f.v, err = m.varint()
	case protowire.Fixed32Type:
		f.v, err = m.fixed(4)
	case protowire.Fixed64Type:
		f.v, err = m.fixed(8)
	case protowire.BytesType:
		var n uint64
		n, err = m.varint()
		if err == nil && n > uint64(m.end-m.off) {
			err = fmt.Errorf("field %d claims %d bytes, only %d left", num, n, m.end-m.off)
		}
		if err == nil {
			f.sub = msg{s: m.s, off: m.off, end: m.off + int64(n)}
			m.off += int64(n)
		}
	default:
		err = fmt.Errorf("unsupported wire type %d in field %d", typ, num)
	}
	if err != nil {
		return fail(err)
	}
	return f, nil
}

func (m *msg) varint() (uint64, error) {
	n := min(int64(binaryMaxVarint), m.end-m.off)
	b, err := m.s.bytes(m.off, n)
	if err != nil {
		return 0, err
	}
	v, k := protowire.ConsumeVarint(b)
	if k < 0 {
		return 0, protowire.ParseError(k)
	}
	m.off += int64(k)
	return v, nil
}

const binaryMaxVarint = 10

func (m *msg) fixed(n int64) (uint64, error) {
	if m.end-m.off < n {
		return 0, io.ErrUnexpectedEOF
	}
	b, err := m.s.bytes(m.off, n)
	if err != nil {
		return 0, err
	}
	m.off += n
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, nil
}

// str copies a length-delimited field as a string; longer than maxString is an error.
func (f field) str() (string, error) {
	if f.typ != protowire.BytesType {
		return "", &parseError{off: f.sub.off, err: fmt.Errorf("field %d is not a string", f.num)}
	}
	n := f.sub.end - f.sub.off
	if n > maxString {
		return "", &parseError{off: f.sub.off, err: fmt.Errorf("string field %d is %d bytes long", f.num, n)}
	}
	b, err := f.sub.s.bytes(f.sub.off, n)
	if err != nil {
		return "", &parseError{off: f.sub.off, err: err}
	}
	return string(b), nil
}

// each calls fn for every field of m.
func (m msg) each(fn func(f field) error) error {
	for {
		f, err := m.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
	}
}
