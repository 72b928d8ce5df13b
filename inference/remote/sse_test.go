package remote

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"edgechat/reply"

	"github.com/google/go-cmp/cmp"
)

var sseCases = []struct {
	name, in string
	want     []string // event data, in order
	err      string   // the error that ends the stream ("" = io.EOF)
}{
	{"one event", "data: {}\n\n", []string{"{}"}, ""},
	{"no space after colon", "data:{}\n\n", []string{"{}"}, ""},
	{"multi-line data", "data: a\ndata: b\n\n", []string{"a\nb"}, ""},
	{"comments and other fields", ": ping\nevent: message\nid: 3\ndata: x\n\n: bye\n\n", []string{"x"}, ""},
	{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}, ""},
	{"last event unterminated", "data: a\n\ndata: b", []string{"a", "b"}, ""},
	{"blank lines between", "\n\n\ndata: a\n\n\n\n", []string{"a"}, ""},
	{"error field", "data: a\n\nerror: {\"message\":\"context full\"}\n\n", []string{"a"}, "context full"},
	{"empty", "", nil, ""},
}

// TestSSEReader reads each stream whole and one byte at a time.
func TestSSEReader(t *testing.T) {
	for _, c := range sseCases {
		for _, oneByte := range []bool{false, true} {
			name := c.name
			if oneByte {
				name += "/byte by byte"
			}
			t.Run(name, func(t *testing.T) {
				var r io.Reader = strings.NewReader(c.in)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				sse := newSSEReader(r)
				var got []string
				var err error
				for {
					var data []byte
					if data, err = sse.next(); err != nil {
						break
					}
					got = append(got, strings.ReplaceAll(string(data), "\r", ""))
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
				if c.err == "" && err != io.EOF || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
					t.Errorf("ended with %v, want %q", err, c.err)
				}
			})
		}
	}
}

// FuzzReadStream checks that no reply, however mangled, panics the reader or ends without
// a finish reason, and that failures are *Error.
func FuzzReadStream(f *testing.F) {
	for _, c := range sseCases {
		f.Add(c.in)
	}
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"<think>a</think>b\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"a\"}}],\"usage\":{\"completion_tokens\":3}}\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		out := make(chan reply.Event, 1024)
		r := &reader{c: New(Config{BaseURL: "http://x"}), ctx: context.Background(), out: out}
		go func() {
			for range out {
			}
		}()
		sum := r.readStream(strings.NewReader(in))
		close(out)
		switch sum.FinishReason {
		case reply.FinishStop, reply.FinishLength:
		case reply.FinishError:
			var e *Error
			if !errors.As(sum.Err, &e) {
				t.Fatalf("error %v is not *Error", sum.Err)
			}
		default:
			t.Fatalf("finish reason %q", sum.FinishReason)
		}
	})
}
