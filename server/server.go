// Package server owns EdgeChat's local OpenAI-compatible HTTP API (/v1/chat/completions,
// /v1/models, /health) in front of one Generator.
package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"edgechat/reply"
)

// Generator is what the server needs from the engine (inference.Engine, remote.Client).
type Generator interface {
	Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error)
}

// Defaults for zero Options fields.
const (
	DefaultAddr         = "127.0.0.1:8080"
	DefaultQueueSize    = 8
	DefaultMaxBodyBytes = 4 << 20
	DefaultModelName    = "edgechat"
)

// maxHeaderBytes caps a request's headers (net/http allows 4 KiB over it).
const maxHeaderBytes = 64 << 10

// Options configure a Server. The zero value serves on 127.0.0.1:8080 without a key.
type Options struct {
	// Addr is the listening address; "" means DefaultAddr (loopback only). ":0" picks a port.
	Addr string
	// APIKey, when set, is required as "Authorization: Bearer KEY" on /v1/ endpoints.
	APIKey string
	// ModelName is the model id /v1/models lists and replies carry.
	ModelName string
	// QueueSize is how many requests may wait while one generates: 0 means DefaultQueueSize,
	// negative means none.
	QueueSize int
	// MaxBodyBytes caps a request body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Embeddings, when set, gives the embedding model /v1/embeddings uses and its name (nil
	// when none is found); it is called on each request and should open the model once.
	Embeddings func() (Embedder, string, error)
	// AllowedOrigins lists the browser origins (e.g. "http://localhost:3000", or "*") allowed
	// to call the API. Empty means CORS is off: requests that carry an Origin header are refused.
	AllowedOrigins []string
	// ReadTimeout is how long a client may take to send a request's headers, and to start
	// sending its body, which must then keep coming at 64 KiB/s; 0 means DefaultReadTimeout.
	ReadTimeout time.Duration
	// WriteTimeout is how long a client may leave a write of the reply untaken before the
	// connection is closed and the reply stopped; 0 means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// MaxConns caps the open connections (see DefaultMaxConns); 0 means DefaultMaxConns.
	MaxConns int
}

// Server serves the API for one Generator. It serves once: after Shutdown, build a new one.
// Its methods are safe for concurrent use.
type Server struct {
	gen     Generator
	opt     Options
	queue   *queue
	created int64
	routes  map[string]map[string]http.HandlerFunc // path → method → handler

	closing   chan struct{} // closed when Shutdown starts: new and waiting requests get 503
	closeOnce sync.Once
	hardStop  context.Context // cancelled when Shutdown's deadline passes: generations stop
	abort     context.CancelFunc

	mu    sync.Mutex
	http  *http.Server
	conns *limitListener // the open connections, once started
}

// New returns a server for gen; it does not listen until Start.
func New(gen Generator, opt Options) *Server {
	if opt.Addr == "" {
		opt.Addr = DefaultAddr
	}
	if opt.ModelName == "" {
		opt.ModelName = DefaultModelName
	}
	switch {
	case opt.QueueSize == 0:
		opt.QueueSize = DefaultQueueSize
	case opt.QueueSize < 0:
		opt.QueueSize = 0
	}
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opt.ReadTimeout <= 0 {
		opt.ReadTimeout = DefaultReadTimeout
	}
	if opt.WriteTimeout <= 0 {
		opt.WriteTimeout = DefaultWriteTimeout
	}
	if opt.MaxConns <= 0 {
		opt.MaxConns = DefaultMaxConns
	}
	s := &Server{gen: gen, opt: opt, queue: newQueue(opt.QueueSize), created: time.Now().Unix(), closing: make(chan struct{})}
	s.hardStop, s.abort = context.WithCancel(context.Background())
	s.routes = map[string]map[string]http.HandlerFunc{
		"/v1/chat/completions": {http.MethodPost: s.handleChat},
		"/v1/completions":      {http.MethodPost: s.handleCompletions},
		"/v1/messages":         {http.MethodPost: s.handleMessages},
		"/v1/embeddings":       {http.MethodPost: s.handleEmbeddings},
		"/v1/responses":        {http.MethodPost: s.handleResponses},
		"/v1/models":           {http.MethodGet: s.handleModels},
		"/health":              {http.MethodGet: s.handleHealth},
	}
	return s
}

// Handler returns the server's HTTP handler (for tests and for embedding).
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

// Start listens on Options.Addr and serves in the background. It returns the address it
// listens on (with the real port when Addr asked for port 0).
func (s *Server) Start() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.http != nil {
		return "", errors.New("the server is already started")
	}
	select {
	case <-s.closing:
		return "", errors.New("the server was shut down; create a new one")
	default:
	}
	ln, err := net.Listen("tcp", s.opt.Addr)
	if err != nil {
		return "", fmt.Errorf("listen on %s: %w (is another server using the port? choose another address)", s.opt.Addr, err)
	}
	limited := newLimitListener(jsonErrorsListener{ln}, s.opt.MaxConns)
	// No ReadTimeout or WriteTimeout here: they would cut streams and long generations. Each
	// request's body and each write of its reply get their own deadlines (see conns.go).
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: s.opt.ReadTimeout, IdleTimeout: idleTimeout,
		MaxHeaderBytes: maxHeaderBytes, ConnState: limited.connState}
	s.http, s.conns = hs, limited
	go func() {
		if err := hs.Serve(limited); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("local API server stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return ln.Addr().String(), nil
}

// Shutdown stops accepting requests, answers waiting ones with 503, and waits for replies in
// progress to finish. When ctx ends first, it cancels them, closes the connections and
// returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() { close(s.closing) })
	s.mu.Lock()
	hs := s.http
	s.mu.Unlock()
	if hs == nil {
		return nil
	}
	defer s.abort() // nothing is left running once Shutdown returns
	err := hs.Shutdown(ctx)
	if err != nil {
		s.abort()
		hs.Close()
	}
	return err
}

func (s *Server) shuttingDown() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// serveHTTP puts deadlines on reading the request's body and on each write of its reply,
// checks host, origin and key, then routes the request.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	timeBody(w, r, s.opt.ReadTimeout)
	w = newTimedWriter(w, s.opt.WriteTimeout)
	if strings.HasPrefix(r.URL.Path, "/v1/messages") {
		w = anthropicWriter{w} // its errors in the Messages API's shape
	}
	if !s.hostAllowed(r.Host) {
		writeError(w, newError(http.StatusForbidden, "invalid_request_error", "host_not_allowed",
			"this server listens on loopback only; use http://127.0.0.1 or http://localhost"))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		if !s.originAllowed(origin) {
			writeError(w, newError(http.StatusForbidden, "invalid_request_error", "origin_not_allowed",
				"requests from "+origin+" are not allowed; add the origin to the server's allowed origins"))
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Api-Key, Anthropic-Version, Anthropic-Beta")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	methods, ok := s.routes[r.URL.Path]
	if !ok {
		writeError(w, newError(http.StatusNotFound, "invalid_request_error", "unknown_url",
			"unknown path "+r.URL.Path+"; this server serves "+s.endpoints()))
		return
	}
	h, ok := methods[r.Method]
	if !ok {
		allow := slices.Sorted(maps.Keys(methods))
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, newError(http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed",
			r.Method+" is not allowed on "+r.URL.Path+"; use "+strings.Join(allow, ", ")))
		return
	}
	if strings.HasPrefix(r.URL.Path, "/v1/") && !s.authorized(r) {
		writeError(w, newError(http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
			"a valid API key is required: send it as \"Authorization: Bearer KEY\""))
		return
	}
	h(w, r)
}

// authorized checks the key: "Authorization: Bearer KEY", or "x-api-key: KEY" as Anthropic's
// clients send it.
func (s *Server) authorized(r *http.Request) bool {
	if s.opt.APIKey == "" {
		return true
	}
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		key, ok = r.Header.Get("X-Api-Key"), r.Header.Get("X-Api-Key") != ""
	}
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(key)), []byte(s.opt.APIKey)) == 1
}

func (s *Server) originAllowed(origin string) bool {
	origin = strings.TrimSuffix(origin, "/")
	for _, o := range s.opt.AllowedOrigins {
		if o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

// hostAllowed guards a loopback server against DNS rebinding: a web page whose name resolves
// to 127.0.0.1 must not reach it. Servers on other addresses accept any Host.
func (s *Server) hostAllowed(host string) bool {
	if !isLoopback(s.opt.Addr) || host == "" {
		return true
	}
	return isLoopback(host)
}

// isLoopback reports whether a host or host:port names the loopback interface.
func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, modelList{Object: "list", Data: []modelInfo{{ID: s.opt.ModelName, Object: "model", Created: s.created, OwnedBy: "edgechat"}}})
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if s.shuttingDown() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "shutting_down"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// endpoints lists every route as "METHOD /path", from the route table (so the 404 message
// cannot fall behind it): POST ones first, then GET, each sorted by path.
func (s *Server) endpoints() string {
	var post, other []string
	for path, methods := range s.routes {
		for m := range methods {
			if m == http.MethodPost {
				post = append(post, m+" "+path)
			} else {
				other = append(other, m+" "+path)
			}
		}
	}
	slices.Sort(post)
	slices.Sort(other)
	return strings.Join(append(post, other...), ", ")
}
