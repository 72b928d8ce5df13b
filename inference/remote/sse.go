package remote

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// sseReader reads Server-Sent Events. It is owned by the goroutine reading the reply.
type sseReader struct {
	sc   *bufio.Scanner
	data []byte
}

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	return &sseReader{sc: sc}
}

// streamError is an "error:" field in the stream (llama.cpp reports failures so).
type streamError struct{ msg string }

func (e *streamError) Error() string { return e.msg }

// next returns the data of the next event (its "data:" lines joined by "\n"), skipping
// comments and other fields. It returns io.EOF at the end of the stream, a *streamError for
// an "error:" field, or the connection's error.
func (s *sseReader) next() ([]byte, error) {
	s.data = s.data[:0]
	for s.sc.Scan() {
		line := s.sc.Bytes()
		if len(line) == 0 { // a blank line ends the event
			if len(s.data) > 0 {
				return s.data, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if len(s.data) > 0 {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
		case "error":
			return nil, &streamError{flatMessage(value)}
		}
	}
	if err := s.sc.Err(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(s.data)) > 0 { // the last event lacked its blank line
		return s.data, nil
	}
	return nil, io.EOF
}

// flatMessage reads an error given as {"error":{"message"}}, {"message"} or plain text.
func flatMessage(b []byte) string {
	if msg, _ := errorMessage(b); msg != "" {
		return msg
	}
	var flat struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &flat) == nil && flat.Message != "" {
		return flat.Message
	}
	return string(b)
}
