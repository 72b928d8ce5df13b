package mcp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// sseReader reads the events of a text/event-stream answer: the data lines of each event
// joined, the other fields (event, id, retry) and comments skipped.
type sseReader struct{ r *bufio.Reader }

func newSSEReader(r io.Reader) *sseReader { return &sseReader{bufio.NewReaderSize(r, 64<<10)} }

// next returns the data of the next event that has any; io.EOF at the end of the stream.
func (s *sseReader) next() ([]byte, error) {
	var data bytes.Buffer
	has := false
	for {
		line, err := s.r.ReadString('\n')
		if len(line) > 0 {
			line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			switch {
			case line == "":
				if has {
					return data.Bytes(), nil
				}
			case strings.HasPrefix(line, ":"): // a comment (keep-alive)
			default:
				field, value, _ := strings.Cut(line, ":")
				value = strings.TrimPrefix(value, " ")
				if field == "data" {
					if has {
						data.WriteByte('\n')
					}
					data.WriteString(value)
					has = true
					if data.Len() > maxMessage {
						return nil, fmt.Errorf("an event longer than %d MiB", maxMessage>>20)
					}
				}
			}
		}
		if err != nil {
			if err == io.EOF && has {
				return data.Bytes(), nil
			}
			return nil, err
		}
	}
}
