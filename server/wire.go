package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// jsonErrorsListener hands out connections whose few answers net/http writes by itself,
// before any handler runs (431 headers too large, 400 for a malformed request, 501 for an
// unknown transfer encoding, sent as 400, 417 for an unknown Expect), go out as OpenAI-shaped JSON like every other
// error of this server: clients parse error bodies as JSON.
type jsonErrorsListener struct{ net.Listener }

func (l jsonErrorsListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return jsonErrorsConn{c}, nil
}

type jsonErrorsConn struct{ net.Conn }

// Write rewrites net/http's own plain-text error response, which it writes in one call
// straight to the connection; everything else passes through untouched.
func (c jsonErrorsConn) Write(b []byte) (int, error) {
	if j, ok := jsonWireError(b); ok {
		if _, err := c.Conn.Write(j); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// plainErrorHeaders are the headers net/http's conn.serve writes with its own errors.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// jsonWireError turns "HTTP/1.1 431 Request Header Fields Too Large" + plainErrorHeaders +
// text, and net/http's bodiless 417, into the same status with an OpenAI-shaped JSON body.
func jsonWireError(b []byte) ([]byte, bool) {
	const prefix = "HTTP/1.1 "
	if !bytes.HasPrefix(b, []byte(prefix)) || len(b) > 4096 {
		return nil, false
	}
	var e *apiError
	if bytes.HasPrefix(b, []byte(prefix+"417 ")) { // an Expect other than 100-continue: no body at all
		e = newError(http.StatusExpectationFailed, "invalid_request_error", "expectation_failed",
			"the request's Expect header asks for what this server does not do; send it without Expect, or with Expect: 100-continue")
	} else {
		statusLine, text, ok := bytes.Cut(b, []byte(plainErrorHeaders))
		if !ok || len(statusLine) < len(prefix)+3 {
			return nil, false
		}
		status, err := strconv.Atoi(string(statusLine[len(prefix) : len(prefix)+3]))
		if err != nil || (status/100 != 4 && status != http.StatusNotImplemented) {
			return nil, false // net/http writes no other status itself
		}
		e = netHTTPError(status, strings.TrimSpace(string(text)))
	}
	body, err := json.Marshal(errorBody{e})
	if err != nil {
		return nil, false
	}
	body = append(body, '\n')
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		e.status, http.StatusText(e.status), len(body), body), true
}

// netHTTPError explains one of net/http's own answers; text is its plain-text body.
func netHTTPError(status int, text string) *apiError {
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		return newError(status, "invalid_request_error", "request_headers_too_large",
			"the request's headers are over the server's limit of "+byteSize(maxHeaderBytes)+"; send fewer or shorter headers")
	case http.StatusNotImplemented: // the client's mistake: a 5xx would invite a retry
		return newError(http.StatusBadRequest, "invalid_request_error", "unsupported_transfer_encoding",
			"the request's Transfer-Encoding is not supported; send the body with Content-Length or chunked")
	}
	_, detail, _ := strings.Cut(text, ": ")
	msg := "the request is not valid HTTP/1.1"
	if detail != "" {
		msg += ": " + detail
	}
	return newError(status, "invalid_request_error", "malformed_request", msg)
}
