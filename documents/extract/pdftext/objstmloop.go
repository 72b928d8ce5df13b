package pdftext

import (
	"reflect"

	"github.com/ledongthuc/pdf"
)

// Object streams that hold themselves. A cross-reference stream may say that an object
// stream is itself stored in an object stream (allowed by no version of the format) and so
// on round to the first: PdfPig's SpookyPass.pdf and StackOverflow_Issue_1122.pdf, whose
// object stream 30 is listed inside itself. The object reader, asked for any object of such
// a stream, asks for the stream first, and for the stream's stream, without end: the stack
// overflows, which ends the whole program (Go's stack overflow is fatal, no recover catches
// it). objectStreamLoop looks along each such chain in the object reader's table before any
// object is read; a file it flags is read from its objects found by scanning (repair.go),
// as pdftotext reads it.
//
// The table is the object reader's own unexported field, read through reflection: should a
// later version of the reader name or shape it differently, the check finds nothing and
// passes.

// objectStreamLoop says whether pr's table stores an object stream, through a chain of
// object streams, in itself.
func objectStreamLoop(pr *pdf.Reader) bool {
	v := reflect.ValueOf(pr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	table := v.Elem().FieldByName("xref")
	if !table.IsValid() || table.Kind() != reflect.Slice {
		return false
	}
	type ref struct {
		id  uint64
		gen uint64
	}
	type entry struct {
		ptr, stream ref
		inStream    bool
	}
	refOf := func(f reflect.Value) (ref, bool) {
		if f.Kind() != reflect.Struct || f.NumField() != 2 || !f.Field(0).CanUint() || !f.Field(1).CanUint() {
			return ref{}, false
		}
		return ref{f.Field(0).Uint(), f.Field(1).Uint()}, true
	}
	n := table.Len()
	entries := make([]entry, n)
	for i := range n {
		e := table.Index(i)
		if e.Kind() != reflect.Struct {
			return false
		}
		ptr, ok1 := refOf(e.FieldByName("ptr"))
		stream, ok2 := refOf(e.FieldByName("stream"))
		in := e.FieldByName("inStream")
		if !ok1 || !ok2 || !in.IsValid() || in.Kind() != reflect.Bool {
			return false
		}
		entries[i] = entry{ptr, stream, in.Bool()}
	}
	// the stream an entry's object is stored in, as the object reader finds it: -1 for an
	// object stored on its own or a stream the table does not hold under that number
	next := func(i int) int {
		e := entries[i]
		if !e.inStream || e.stream.id >= uint64(n) || entries[e.stream.id].ptr != e.stream {
			return -1
		}
		return int(e.stream.id)
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, n)
	for i := range n {
		j := i
		for j >= 0 && state[j] == unseen {
			state[j] = onPath
			j = next(j)
		}
		if j >= 0 && state[j] == onPath {
			return true
		}
		for j = i; j >= 0 && state[j] == onPath; j = next(j) {
			state[j] = done
		}
	}
	return false
}
