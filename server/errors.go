package server

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// apiError is an error in OpenAI's shape: {"error":{"message","type","code"}}.
type apiError struct {
	status  int
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param,omitempty"`
	Code    *string `json:"code"`
	// retryAfter, when positive, is sent as the Retry-After header (seconds).
	retryAfter int
}

func (e *apiError) Error() string { return e.Message }

func newError(status int, typ, code, msg string) *apiError {
	e := &apiError{status: status, Message: msg, Type: typ}
	if code != "" {
		e.Code = &code
	}
	return e
}

// badRequest reports a client mistake in the request (400).
func badRequest(code, msg string) *apiError {
	return newError(http.StatusBadRequest, "invalid_request_error", code, msg)
}

// errorBody is the JSON body of an error response and of an SSE error event.
type errorBody struct {
	Error *apiError `json:"error"`
}

// writeError sends e as the whole response, in the Messages API's shape on its responses.
func writeError(w http.ResponseWriter, e *apiError) {
	h := w.Header()
	if _, ok := w.(anthropicWriter); ok {
		if e.retryAfter > 0 {
			h.Set("Retry-After", strconv.Itoa(e.retryAfter))
		}
		writeJSON(w, e.status, anthropicErrorOf(e))
		return
	}
	if e.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	if e.status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="edgechat"`)
	}
	writeJSON(w, e.status, errorBody{e})
}

// writeJSON sends v as the whole response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // only our own types are written: a bug, not a user mistake
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"internal error encoding the response","type":"server_error","code":null}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
