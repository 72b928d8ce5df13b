package reply

import "errors"

// ErrContextLength marks a request that cannot fit the model's context at all: its last
// message, or the reply budget it insists on, is over the context. Producers wrap it with
// ContextLength; consumers branch on it with errors.Is (the local server answers 400
// context_length_exceeded, as OpenAI does, instead of a server error).
var ErrContextLength = errors.New("the request does not fit the model's context")

// ContextLength returns an error that reads as explain (which should give the numbers and
// what to do) and is ErrContextLength for errors.Is.
func ContextLength(explain error) error { return &markedError{explain, ErrContextLength} }

// ErrInvalidPrompt marks a raw prompt the model cannot take as given (empty, or a token id
// outside its vocabulary): the local server answers 400 instead of a server error.
var ErrInvalidPrompt = errors.New("the prompt is not valid for this model")

// InvalidPrompt returns an error that reads as explain and is ErrInvalidPrompt for errors.Is.
func InvalidPrompt(explain error) error { return &markedError{explain, ErrInvalidPrompt} }

// markedError reads as its explanation and is also its mark for errors.Is.
type markedError struct{ explain, mark error }

func (e *markedError) Error() string   { return e.explain.Error() }
func (e *markedError) Unwrap() []error { return []error{e.explain, e.mark} }
