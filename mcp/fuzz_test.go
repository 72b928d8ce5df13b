package mcp

import (
	"bytes"
	"testing"
)

// FuzzReadMessage feeds the stdio reader any output a server might write: it returns
// messages or errors, never panics, and ends.
func FuzzReadMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		`{"jsonrpc":"2.0","method":"ping","id":"a"}` + "\n\n" + `{"jsonrpc":"2.0","method":"x"}`,
		`[{"jsonrpc":"2.0"}]`, "not json\n", `{"jsonrpc":"1.0","id":1,"result":1}`, `{"jsonrpc":"2.0","id":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lr := newLineReader(bytes.NewReader(b))
		for range len(b) + 2 {
			m, err := lr.next()
			if err != nil {
				return
			}
			if m.JSONRPC != "2.0" || (m.Method == "" && len(m.ID) == 0) {
				t.Fatalf("accepted %+v", m)
			}
		}
		t.Fatal("the reader did not end")
	})
}

// FuzzReadSSE feeds the event-stream reader any body.
func FuzzReadSSE(f *testing.F) {
	for _, s := range []string{"data: {}\n\n", "id: 1\ndata:\n\n: c\nevent: message\ndata: a\ndata: b\r\n\r\n", "data: x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sr := newSSEReader(bytes.NewReader(b))
		for range len(b) + 2 {
			if _, err := sr.next(); err != nil {
				return
			}
		}
		t.Fatal("the reader did not end")
	})
}
