package server

import (
	"context"
	"net/http"
)

// queue lets one request generate at a time and up to n more wait for their turn, in order
// of arrival; beyond that a request is turned away. It is safe for concurrent use.
type queue struct {
	tickets chan struct{} // held from admission to release: 1 running + n waiting
	turn    chan struct{} // held while generating
}

func newQueue(waiting int) *queue {
	return &queue{tickets: make(chan struct{}, 1+waiting), turn: make(chan struct{}, 1)}
}

// queueFullError is the answer to a request that finds the queue full.
func queueFullError() *apiError {
	e := newError(http.StatusTooManyRequests, "rate_limit_error", "queue_full",
		"the server is busy: one reply is being generated and the waiting queue is full; retry shortly")
	e.retryAfter = 1
	return e
}

// shuttingDownError is the answer to a request that comes or waits while the server stops.
func shuttingDownError() *apiError {
	return newError(http.StatusServiceUnavailable, "server_error", "shutting_down", "the server is shutting down")
}

// acquire waits for the request's turn. It fails at once when the queue is full, and while
// waiting when ctx ends or closing is closed. On success the caller must call release.
func (q *queue) acquire(ctx context.Context, closing <-chan struct{}) *apiError {
	select {
	case q.tickets <- struct{}{}:
	default:
		return queueFullError()
	}
	select {
	case q.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		<-q.tickets
		return newError(499, "invalid_request_error", "cancelled", "the client went away")
	case <-closing:
		<-q.tickets
		return shuttingDownError()
	}
}

func (q *queue) release() {
	<-q.turn
	<-q.tickets
}
