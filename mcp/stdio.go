package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// stdio is the transport to a child process: one JSON-RPC message per line on its stdin and
// stdout; what it writes on stderr is kept (the end of it) for error messages.
type stdio struct {
	name   string
	w      io.WriteCloser
	wmu    sync.Mutex
	stderr *tail

	mu      sync.Mutex
	pending map[string]chan *message
	nextID  int64
	done    chan struct{} // closed when the reader stops
	err     error         // why it stopped

	stop func() error // stops the process and waits for it; nil for an in-process peer
	// exited, when set, waits briefly for the process's exit status once its output ended.
	exited func() (error, bool)
}

// startStdio starts the server's command with its env added to this process's environment.
func startStdio(s ServerConfig) (*stdio, error) {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Our own pipe, not StdoutPipe: Wait would close that one under the reader and lose the
	// last messages of a server that exits.
	stdout, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	errTail := &tail{}
	cmd.Stderr = errTail
	cmd.WaitDelay = time.Second // a grandchild holding stderr open does not stall Wait
	ownGroup(cmd)
	err = cmd.Start()
	pw.Close()
	if err != nil {
		stdout.Close()
		return nil, fmt.Errorf("MCP server %s: cannot start %s: %w", s.Name, s.Command, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
		time.Sleep(time.Second) // then a grandchild holding the output open does not keep the reader
		stdout.Close()
	}()
	t := unstarted(s.Name, stdin) // the fields its reader reads are set before it starts
	t.stderr = errTail
	t.exited = func() (error, bool) {
		select {
		case <-exited:
			return waitErr, true
		case <-time.After(2 * time.Second):
			return nil, false
		}
	}
	t.stop = func() error {
		stdin.Close() // a well-behaved server exits at the end of its input
		select {
		case <-exited:
			return nil
		case <-time.After(2 * time.Second):
		}
		terminate(cmd)
		select {
		case <-exited:
			return nil
		case <-time.After(2 * time.Second):
		}
		kill(cmd)
		<-exited
		return nil
	}
	go t.read(stdout)
	return t, nil
}

// newStdio runs the transport over r and w (a process's pipes, or an in-process server's).
func newStdio(name string, r io.Reader, w io.WriteCloser) *stdio {
	t := unstarted(name, w)
	go t.read(r)
	return t
}

// unstarted is a transport writing to w whose reader is not running yet.
func unstarted(name string, w io.WriteCloser) *stdio {
	return &stdio{name: name, w: w, pending: map[string]chan *message{}, done: make(chan struct{})}
}

// read hands each response to its caller and answers the server's requests, until the
// server's output ends or is not MCP.
func (t *stdio) read(r io.Reader) {
	lr := newLineReader(r)
	var err error
	for {
		var m *message
		if m, err = lr.next(); err != nil {
			break
		}
		switch {
		case m.isResponse():
			t.mu.Lock()
			ch := t.pending[string(m.ID)]
			delete(t.pending, string(m.ID))
			t.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case m.isRequest():
			go t.answer(m)
		}
	}
	t.mu.Lock()
	t.err = t.why(err)
	t.mu.Unlock()
	close(t.done)
}

// why words the end of the server's output.
func (t *stdio) why(err error) error {
	if err == io.EOF || errors.Is(err, os.ErrClosed) {
		msg := "stopped"
		if t.exited != nil {
			if werr, ok := t.exited(); ok && werr != nil {
				msg = "stopped (" + werr.Error() + ")"
			}
		}
		return fmt.Errorf("the server %s%s", msg, t.stderrNote())
	}
	return fmt.Errorf("the server wrote something that is not an MCP message on its output: %v%s", err, t.stderrNote())
}

func (t *stdio) stderrNote() string {
	if t.stderr == nil {
		return ""
	}
	if s := strings.TrimSpace(t.stderr.String()); s != "" {
		return "; it said: " + s
	}
	return ""
}

// answer replies to a request the server made: ping, and nothing else this client offers.
func (t *stdio) answer(m *message) {
	reply := message{JSONRPC: "2.0", ID: m.ID}
	if m.Method == "ping" {
		reply.Result = json.RawMessage("{}")
	} else {
		reply.Error = &RPCError{Code: codeMethodNotFound, Message: "EdgeChat does not offer " + m.Method}
	}
	t.write(&reply)
}

func (t *stdio) write(m *message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	_, err = t.w.Write(append(b, '\n'))
	return err
}

func (t *stdio) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	ch := make(chan *message, 1)
	t.mu.Lock()
	if t.err != nil {
		err := t.err
		t.mu.Unlock()
		return nil, err
	}
	t.nextID++
	id := json.RawMessage(strconv.FormatInt(t.nextID, 10))
	t.pending[string(id)] = ch
	t.mu.Unlock()
	if err := t.write(&message{JSONRPC: "2.0", ID: id, Method: method, Params: p}); err != nil {
		t.forget(id)
		select { // the write fails because the process is gone: say why
		case <-t.done:
			return nil, t.err
		case <-time.After(3 * time.Second):
			return nil, fmt.Errorf("cannot write to the server: %v", err)
		}
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-t.done:
		return nil, t.err
	case <-ctx.Done():
		t.forget(id)
		t.notify(context.Background(), "notifications/cancelled", map[string]any{"requestId": id, "reason": ctx.Err().Error()})
		return nil, ctx.Err()
	}
}

func (t *stdio) forget(id json.RawMessage) {
	t.mu.Lock()
	delete(t.pending, string(id))
	t.mu.Unlock()
}

func (t *stdio) notify(_ context.Context, method string, params any) error {
	p, err := marshalParams(params)
	if err != nil {
		return err
	}
	return t.write(&message{JSONRPC: "2.0", Method: method, Params: p})
}

func (t *stdio) setProtocol(string) {}

func (t *stdio) close() error {
	if t.stop != nil {
		return t.stop()
	}
	return t.w.Close()
}

func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	return json.Marshal(params)
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
