package reply

import (
	"errors"
	"fmt"
)

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

// ErrInvalidParameter marks a request parameter the model cannot take as given (a logit_bias
// token id outside its vocabulary): the local server answers 400 naming the parameter.
var ErrInvalidParameter = errors.New("a request parameter is not valid for this model")

// ParamError is an ErrInvalidParameter: Param names the request parameter as the API spells
// it ("logit_bias").
type ParamError struct {
	Param string
	Err   error
}

// InvalidParameter returns a ParamError that reads "param: explain".
func InvalidParameter(param string, explain error) error { return &ParamError{param, explain} }

func (e *ParamError) Error() string { return fmt.Sprintf("%s: %v", e.Param, e.Err) }

// Is makes a ParamError an ErrInvalidParameter for errors.Is.
func (e *ParamError) Is(target error) bool { return target == ErrInvalidParameter }

func (e *ParamError) Unwrap() error { return e.Err }

// RequestFault reports whether err is the request's own fault rather than the route's: a
// prompt or reply budget over the context, a raw prompt or a parameter the model cannot take.
// A route that answers so has not failed.
func RequestFault(err error) bool {
	return errors.Is(err, ErrContextLength) || errors.Is(err, ErrInvalidPrompt) || errors.Is(err, ErrInvalidParameter)
}

// markedError reads as its explanation and is also its mark for errors.Is.
type markedError struct{ explain, mark error }

func (e *markedError) Error() string   { return e.explain.Error() }
func (e *markedError) Unwrap() []error { return []error{e.explain, e.mark} }
