package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// message is one JSON-RPC 2.0 message: a request (ID and Method), a notification (Method, no
// ID), or a response (ID and Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

func (m *message) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }
func (m *message) isRequest() bool  { return m.Method != "" && len(m.ID) > 0 }

// RPCError is a JSON-RPC error a server answered.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("error %d", e.Code)
	}
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

// JSON-RPC error codes this client sends.
const (
	codeMethodNotFound = -32601
)

// maxMessage bounds one message (a tool result with an image can be large, a runaway
// server's endless line must not take the memory).
const maxMessage = 16 << 20

// parseMessage decodes one message and checks it is JSON-RPC 2.0.
func parseMessage(b []byte) (*message, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, errors.New("an empty message")
	}
	if b[0] == '[' {
		return nil, errors.New("a JSON-RPC batch, which this protocol revision does not use")
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("not JSON: %v (%s)", err, clip(b, 120))
	}
	if m.JSONRPC != "2.0" {
		return nil, fmt.Errorf("not JSON-RPC 2.0 (jsonrpc is %q)", m.JSONRPC)
	}
	if m.Method == "" && len(m.ID) == 0 {
		return nil, fmt.Errorf("neither a request nor a response (%s)", clip(b, 120))
	}
	if m.isResponse() && m.Result == nil && m.Error == nil {
		return nil, fmt.Errorf("a response with neither result nor error (%s)", clip(b, 120))
	}
	return &m, nil
}

// lineReader reads the newline-delimited messages of the stdio transport.
type lineReader struct{ r *bufio.Reader }

func newLineReader(r io.Reader) *lineReader { return &lineReader{bufio.NewReaderSize(r, 64<<10)} }

// next returns the next message; blank lines are skipped. io.EOF at the end of the stream.
func (l *lineReader) next() (*message, error) {
	for {
		line, err := l.readLine()
		if len(bytes.TrimSpace(line)) > 0 {
			m, perr := parseMessage(line)
			if perr != nil {
				return nil, perr
			}
			return m, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (l *lineReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(line)+len(chunk) > maxMessage {
			return nil, fmt.Errorf("a message longer than %d MiB", maxMessage>>20)
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}

// clip shortens b for an error message.
func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
