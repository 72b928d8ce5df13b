// Package remote streams replies from an OpenAI-compatible chat server (vLLM, Ollama,
// llama.cpp, Foundry Local, edgechat serve) as the same events the local engine produces.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"edgechat/reply"
)

// Backend is the Summary.Backend of replies served by a remote server.
const Backend = "remote"

// Config says which server to use.
type Config struct {
	// BaseURL is the server's OpenAI API root, e.g. "http://localhost:11434/v1". A URL
	// without a path gets "/v1".
	BaseURL string
	// Model is the model id to ask for; "" takes the first one the server lists.
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer KEY".
	APIKey string
	// HTTPClient makes the requests; nil means one with a 10 s connect timeout.
	HTTPClient *http.Client
}

// Client generates replies on a remote server. It is safe for concurrent use.
type Client struct {
	cfg    Config
	base   string // BaseURL without a trailing slash, as errors show it
	urlErr error
	host   string
	hc     *http.Client

	mu    sync.Mutex
	model string // cfg.Model, or the one the server listed first
}

// New returns a client for cfg. It does not contact the server.
func New(cfg Config) *Client {
	c := &Client{cfg: cfg, hc: cfg.HTTPClient, model: cfg.Model}
	if c.hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		c.hc = &http.Client{Transport: t}
	}
	c.base = strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	u, err := url.Parse(c.base)
	switch {
	case err != nil:
		c.urlErr = err
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		c.urlErr = errors.New("it must start with http:// or https:// and name a host")
	default:
		if u.Path == "" {
			c.base += "/v1"
		}
		c.host = u.Host
	}
	return c
}

// Generate streams a reply to req from the server. The channel yields thinking and text
// events and ends with one EventDone whose Summary has Backend "remote" and Device the
// server's host; a failure is FinishReason "error" with an *Error (see IsUnavailable).
// Cancelling ctx stops the request.
func (c *Client) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	if c.urlErr != nil {
		return nil, &Error{Server: c.base, BeforeOutput: true, msg: fmt.Sprintf("the remote server address %q is not a URL EdgeChat can use: %v — check Settings → Remote", c.cfg.BaseURL, c.urlErr), err: c.urlErr}
	}
	if req.Prompt != nil {
		return nil, errors.New("the remote server answers chat requests only, not plain completion of a raw prompt: use a local model")
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("the conversation is empty")
	}
	if usesTools(req) {
		return nil, reply.ToolsError(errors.New("the remote server is not given tools, tool calls or response formats yet: use a local model for them"))
	}
	out := make(chan reply.Event, 64)
	go func() {
		defer close(out)
		sum := c.generate(ctx, req, out)
		sum.Backend, sum.Device = Backend, c.host
		reply.SendFinal(ctx, out, reply.Event{Kind: reply.EventDone, Done: sum})
	}()
	return out, nil
}

// usesTools reports whether req needs what the remote route cannot relay: tools, a history
// with tool calls or results, or a response format.
func usesTools(req reply.Request) bool {
	if req.Format != nil || len(req.Tools) > 0 && req.ToolChoice.Mode != reply.ToolNone {
		return true
	}
	for _, m := range req.Messages {
		if len(m.ToolCalls) > 0 || m.Role == "tool" {
			return true
		}
	}
	return false
}

// generate makes the request and reads the reply; it always returns a summary.
func (c *Client) generate(ctx context.Context, req reply.Request, out chan<- reply.Event) *reply.Summary {
	start := time.Now()
	model, err := c.modelID(ctx)
	if err != nil {
		return failed(ctx, err)
	}
	body, err := json.Marshal(newChatBody(model, req))
	if err != nil {
		return failed(ctx, err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return failed(ctx, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	c.authorize(hreq)
	resp, err := c.hc.Do(hreq)
	if err != nil {
		return failed(ctx, c.connError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return failed(ctx, c.statusError(resp, model))
	}
	r := &reader{c: c, ctx: ctx, out: out, start: start}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return r.readCompletion(resp.Body) // a server that does not stream
	}
	return r.readStream(resp.Body)
}

func (c *Client) authorize(r *http.Request) {
	if c.cfg.APIKey != "" {
		r.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
}

// failed is the summary of a reply that ended with err, or was cancelled.
func failed(ctx context.Context, err error) *reply.Summary {
	if ctx.Err() != nil {
		return &reply.Summary{FinishReason: reply.FinishCancelled}
	}
	return &reply.Summary{FinishReason: reply.FinishError, Err: err}
}

// modelID returns the configured model, or asks the server for its first one (once).
func (c *Client) modelID(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.model != "" {
		return c.model, nil
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/models", nil)
	if err != nil {
		return "", err
	}
	c.authorize(hreq)
	resp, err := c.hc.Do(hreq)
	if err != nil {
		return "", c.connError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", c.statusError(resp, "")
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Data) == 0 || list.Data[0].ID == "" {
		return "", &Error{Server: c.base, BeforeOutput: true, err: err,
			msg: "the remote server at " + c.base + " lists no model — set the model name in Settings → Remote"}
	}
	c.model = list.Data[0].ID
	return c.model, nil
}

// chatBody is the request sent to the server.
type chatBody struct {
	Model             string         `json:"model,omitempty"`
	Messages          []wireMessage  `json:"messages"`
	Stream            bool           `json:"stream"`
	StreamOptions     map[string]any `json:"stream_options,omitempty"`
	MaxTokens         int            `json:"max_tokens,omitempty"`
	Temperature       *float64       `json:"temperature,omitempty"`
	TopP              *float64       `json:"top_p,omitempty"`
	TopK              *int           `json:"top_k,omitempty"`
	MinP              *float64       `json:"min_p,omitempty"`
	RepetitionPenalty *float64       `json:"repetition_penalty,omitempty"`
	PresencePenalty   *float64       `json:"presence_penalty,omitempty"`
	FrequencyPenalty  *float64       `json:"frequency_penalty,omitempty"`
	Seed              *int64         `json:"seed,omitempty"`
	Stop              []string       `json:"stop,omitempty"`
	// LogitBias goes as OpenAI spells it, token ids as strings (JSON object keys).
	LogitBias map[int]float64 `json:"logit_bias,omitempty"`
	// ChatTemplateKwargs turns Qwen3's reasoning off on servers that render the template
	// (vLLM, SGLang, llama.cpp, edgechat serve); it is only sent then, as others may refuse it.
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs,omitempty"`
}

type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func newChatBody(model string, req reply.Request) chatBody {
	s := req.Sampling
	b := chatBody{
		Model: model, Stream: true, StreamOptions: map[string]any{"include_usage": true},
		MaxTokens: req.MaxTokens, Temperature: s.Temperature, TopP: s.TopP, TopK: s.TopK, MinP: s.MinP,
		RepetitionPenalty: s.RepetitionPenalty, PresencePenalty: s.PresencePenalty, FrequencyPenalty: s.FrequencyPenalty,
		Seed: s.Seed, Stop: req.Stop, LogitBias: s.LogitBias,
	}
	for _, m := range req.Messages {
		b.Messages = append(b.Messages, wireMessage{Role: m.Role, Content: m.Content})
	}
	if !req.Thinking {
		b.ChatTemplateKwargs = map[string]any{"enable_thinking": false}
	}
	return b
}
