package reply

import "errors"

// ErrContextLength marks a request that cannot fit the model's context at all: its last
// message, or the reply budget it insists on, is over the context. Producers wrap it with
// ContextLength; consumers branch on it with errors.Is (the local server answers 400
// context_length_exceeded, as OpenAI does, instead of a server error).
var ErrContextLength = errors.New("the request does not fit the model's context")

// ContextLength returns an error that reads as explain (which should give the numbers and
// what to do) and is ErrContextLength for errors.Is.
func ContextLength(explain error) error { return &contextLengthError{explain} }

type contextLengthError struct{ explain error }

func (e *contextLengthError) Error() string   { return e.explain.Error() }
func (e *contextLengthError) Unwrap() []error { return []error{e.explain, ErrContextLength} }
