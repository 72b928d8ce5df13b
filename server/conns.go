package server

import (
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Limits on what a client may hold, so that slow or silent clients cannot pile up connections
// and descriptors, and one that stops reading cannot hold the model. Streams are never cut for
// their length: write deadlines are per write.
const (
	// DefaultReadTimeout is how long a client may take to send a request's headers, and to
	// start sending its body.
	DefaultReadTimeout = 5 * time.Second
	// bodyMinRate is the slowest a body may keep coming after that: each byte read extends the
	// body's deadline by 1/bodyMinRate s, so a 4 MiB body may take 64 s more.
	bodyMinRate = 64 << 10
	// DefaultWriteTimeout is how long a client may leave one write of a reply untaken (a
	// stream's next chunk, or the whole reply): then the connection is closed and the reply
	// stopped.
	DefaultWriteTimeout = 30 * time.Second
	// idleTimeout closes a kept-alive connection after that long without a request.
	idleTimeout = 2 * time.Minute
	// DefaultMaxConns caps the open connections: one reply is generated at a time and a few
	// wait, so more than this is a client pool left open or an attack (each costs ~20 KB). A
	// connection over the cap waits to be accepted (in the system's queue, holding none of the
	// server's descriptors) until one closes; an idle kept-alive connection is closed at once
	// to make room.
	DefaultMaxConns = 256
)

// limitListener accepts at most cap(slots) connections at a time. Accept waits for a free
// slot; when there is none it closes the connection idle the longest, if any.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	closed    chan struct{}
	closeOnce sync.Once

	mu   sync.Mutex
	idle map[net.Conn]time.Time // connections between requests, since when
	open int                    // connections accepted and not closed
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), closed: make(chan struct{}), idle: map[net.Conn]time.Time{}}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		l.closeOldestIdle()
		select {
		case l.slots <- struct{}{}:
		case <-l.closed:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.mu.Unlock()
	return &limitedConn{Conn: c, l: l}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// openConns is how many connections are open.
func (l *limitListener) openConns() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// closeOldestIdle closes the connection idle the longest, if one is; its slot frees as it
// closes.
func (l *limitListener) closeOldestIdle() {
	l.mu.Lock()
	var oldest net.Conn
	var since time.Time
	for c, t := range l.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	delete(l.idle, oldest)
	l.mu.Unlock()
	if oldest != nil {
		oldest.Close()
	}
}

// connState is http.Server.ConnState: it keeps the idle set, and clears an idle connection's
// write deadline, which a handler set for its own reply, so that what net/http writes for the
// next request is not cut by it.
func (l *limitListener) connState(c net.Conn, state http.ConnState) {
	if state == http.StateIdle {
		c.SetWriteDeadline(time.Time{})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if state == http.StateIdle {
		l.idle[c] = time.Now()
	} else {
		delete(l.idle, c)
	}
}

// limitedConn frees its listener slot when it closes.
type limitedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.idle, c)
		c.l.open--
		c.l.mu.Unlock()
		<-c.l.slots
	})
	return err
}

// timedBody is a request body that must keep coming: it arms the connection's read deadline at
// readTimeout from the start, and each read moves it by what was read at bodyMinRate. done
// clears it, so that the connection's watch for a client that goes away does not time out
// while the reply is made.
type timedBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	read  int64
}

// timeBody arms r's read deadline for its body, when it has one, and returns it.
func timeBody(w http.ResponseWriter, r *http.Request, grace time.Duration) *timedBody {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	b := &timedBody{ReadCloser: r.Body, rc: http.NewResponseController(w), start: time.Now(), grace: grace}
	b.rc.SetReadDeadline(b.deadline()) // unsupported by a test recorder: no deadline then
	r.Body = b
	return b
}

func (b *timedBody) deadline() time.Time {
	return b.start.Add(b.grace + time.Duration(b.read)*time.Second/bodyMinRate)
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.read += int64(n)
		b.rc.SetReadDeadline(b.deadline())
	}
	return n, err
}

// done clears the read deadline once the whole body is read; a nil timedBody has none.
func (b *timedBody) done() {
	if b != nil {
		b.rc.SetReadDeadline(time.Time{})
	}
}

// timedWriter arms the connection's write deadline before each write of the reply, so that a
// client that stops reading is cut off after timeout while a reply that streams for minutes
// is not. It moves the deadline only when an eighth of timeout has passed since it last did
// (a stream writes twice a token): a write may wait from 7/8 of timeout to all of it.
type timedWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	armed   time.Time
}

func newTimedWriter(w http.ResponseWriter, timeout time.Duration) *timedWriter {
	return &timedWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: timeout}
}

func (w *timedWriter) arm() {
	if now := time.Now(); now.Sub(w.armed) >= w.timeout/8 {
		w.rc.SetWriteDeadline(now.Add(w.timeout))
		w.armed = now
	}
}

func (w *timedWriter) Write(p []byte) (int, error) {
	w.arm()
	return w.ResponseWriter.Write(p)
}

// FlushError is what http.ResponseController.Flush calls.
func (w *timedWriter) FlushError() error {
	w.arm()
	return w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection's other controls.
func (w *timedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
