package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"edgechat/internal/host"
	"edgechat/reply"
)

// Error is a failed remote reply. Its message says what went wrong and where to fix it.
type Error struct {
	// Server is the base URL the request went to.
	Server string
	// StatusCode is the HTTP status when the server answered with an error, else 0.
	StatusCode int
	// BeforeOutput is true when the request failed before any reply text arrived: the caller
	// may serve the request another way.
	BeforeOutput bool
	msg          string
	err          error
}

func (e *Error) Error() string { return e.msg }
func (e *Error) Unwrap() error { return e.err }

// IsUnavailable reports whether err is a remote failure that happened before any output
// (server unreachable, key refused, HTTP error, unreadable reply): nothing was shown to the
// user, so the request can fall back to a local route.
func IsUnavailable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.BeforeOutput
}

// connError explains a request that got no HTTP answer.
func (c *Client) connError(err error) *Error {
	var dnsErr *net.DNSError
	var netErr net.Error
	var what string
	switch {
	case host.ConnRefused(err):
		what = "refused the connection — is the server running? Check the address in Settings → Remote"
	case errors.As(err, &dnsErr):
		what = fmt.Sprintf("cannot be found (no host %q) — check the address in Settings → Remote", dnsErr.Name)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		what = "did not answer in time — is it running and reachable from this PC?"
	default:
		what = fmt.Sprintf("cannot be reached (%v) — check the address in Settings → Remote", unwrapURL(err))
	}
	return &Error{Server: c.base, BeforeOutput: true, msg: "the remote server at " + c.base + " " + what, err: err}
}

// unwrapURL drops net/http's `Post "URL": ` prefix, which repeats the address.
func unwrapURL(err error) error {
	if u, ok := errors.AsType[*url.Error](err); ok {
		return u.Err
	}
	return err
}

// statusError explains an HTTP error answer, quoting the server's own message when it gives one.
func (c *Client) statusError(resp *http.Response, model string) *Error {
	detail, code := serverMessage(resp.Body)
	if detail == "" {
		detail = resp.Status
	}
	var what string
	if code == "context_length_exceeded" { // OpenAI's code: the request cannot fit at all
		return &Error{Server: c.base, StatusCode: resp.StatusCode, BeforeOutput: true, err: reply.ErrContextLength,
			msg: "the remote server at " + c.base + " cannot fit this conversation in its model's context (" + detail + ") — shorten the message or start a new chat"}
	}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		what = "refused the API key — check Settings → Remote (" + detail + ")"
	case code == http.StatusNotFound && model == "":
		what = "has no OpenAI-compatible API there (" + detail + ") — check the address in Settings → Remote; it usually ends in /v1"
	case code == http.StatusNotFound:
		what = fmt.Sprintf("has no chat endpoint or no model %q (%s) — check the address and model in Settings → Remote", model, detail)
	case code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable:
		what = "is busy (" + detail + "); try again shortly"
	case code >= 500:
		what = "failed (" + detail + ")"
	default:
		what = "rejected the request (" + detail + ")"
	}
	return &Error{Server: c.base, StatusCode: resp.StatusCode, BeforeOutput: true, msg: "the remote server at " + c.base + " " + what}
}

// serverMessage reads an error body: OpenAI's {"error":{"message","code"}}, vLLM's
// {"message"}, or short plain text; code is the error's code when it gives one.
func serverMessage(body io.Reader) (msg, code string) {
	b, _ := io.ReadAll(io.LimitReader(body, 64<<10))
	if msg, code := errorMessage(b); msg != "" {
		return msg, code
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 200 || strings.HasPrefix(s, "<") {
		return "", ""
	}
	return s, ""
}

// errorMessage extracts the message and code of a JSON error object, or "" when b is not one.
func errorMessage(b []byte) (string, string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Object  string          `json:"object"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(b, &v) != nil {
		return "", ""
	}
	if len(v.Error) > 0 && string(v.Error) != "null" {
		var inner struct {
			Message string `json:"message"`
			Code    any    `json:"code"` // a string at OpenAI, a number at some servers
		}
		if json.Unmarshal(v.Error, &inner) == nil && inner.Message != "" {
			code, _ := inner.Code.(string)
			return inner.Message, code
		}
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return s, ""
		}
		return string(v.Error), ""
	}
	if v.Object == "error" && v.Message != "" {
		return v.Message, ""
	}
	return "", ""
}
