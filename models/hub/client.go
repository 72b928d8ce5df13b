package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"syscall"
	"time"

	"edgechat/internal/host"
	"edgechat/internal/safepath"
)

// DefaultEndpoint is the Hub's address when HF_ENDPOINT is not set.
const DefaultEndpoint = "https://huggingface.co"

// Client talks to the Hub's API. The zero value is not useful; use NewClient.
type Client struct {
	Endpoint string // without a trailing slash
	Token    string // "" = anonymous
	HTTP     *http.Client
	// Backoff is the first wait before an API call is tried again (0 = 1 s), doubling.
	Backoff time.Duration
}

// NewClient returns a client for HF_ENDPOINT (else DefaultEndpoint) with token (else
// HF_TOKEN). Its transport is net/http's default: the system's proxy (HTTPS_PROXY, …) and
// certificate store.
func NewClient(token string) *Client {
	ep := strings.TrimRight(os.Getenv("HF_ENDPOINT"), "/")
	if ep == "" {
		ep = DefaultEndpoint
	}
	if token == "" {
		token = os.Getenv("HF_TOKEN")
	}
	return &Client{Endpoint: ep, Token: token, HTTP: &http.Client{CheckRedirect: keepTokenHome}}
}

// keepTokenHome drops the token when a redirect leaves the Hub's host (and port): the CDN's
// signed address needs none, and it must not see it.
func keepTokenHome(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return fmt.Errorf("stopped after 10 redirects")
	}
	if req.URL.Host != via[0].URL.Host {
		req.Header.Del("Authorization")
	}
	return nil
}

// Entry is one file of a repository as the tree API lists it.
type Entry struct {
	Type string `json:"type"`
	Path string `json:"path"`
	Size int64  `json:"size"`
	OID  string `json:"oid"` // git blob sha1
	LFS  *struct {
		OID  string `json:"oid"` // sha256
		Size int64  `json:"size"`
	} `json:"lfs,omitempty"`
}

// SHA256 is the LFS file's sha256, or "".
func (e Entry) SHA256() string {
	if e.LFS != nil {
		return e.LFS.OID
	}
	return ""
}

var repoRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ParseRef splits "ORG/NAME[@REVISION]"; the revision defaults to main.
func ParseRef(s string) (repo, rev string, err error) {
	repo, rev, _ = strings.Cut(strings.TrimSpace(s), "@")
	if rev == "" {
		rev = "main"
	}
	if !repoRe.MatchString(repo) || strings.Contains(repo, "..") || safepath.Name(repoFolder(repo)) != nil {
		return "", "", fmt.Errorf("%q is not a model name: write it as ORG/NAME, e.g. onnx-community/Qwen3-0.6B-ONNX (optionally @REVISION)", s)
	}
	return repo, rev, nil
}

// Commit resolves rev (a branch, tag or commit) to the commit id it points at now: 40
// lowercase hex digits, or ErrBadServer — the id names the download's folders.
func (c *Client) Commit(ctx context.Context, repo, rev string) (string, error) {
	var out struct {
		SHA string `json:"sha"`
	}
	u := fmt.Sprintf("%s/api/models/%s/revision/%s", c.Endpoint, repo, url.PathEscape(rev))
	if _, err := c.getJSON(ctx, repo, u, &out); err != nil {
		return "", err
	}
	if !shaRe.MatchString(out.SHA) {
		return "", c.badServer("gave %q as the commit of %s@%s, which is not a commit id (40 lowercase hex digits)", clip(out.SHA), repo, rev)
	}
	return out.SHA, nil
}

var shaRe = regexp.MustCompile(`^[0-9a-f]{40}$`)

// badServer is ErrBadServer for an answer of c's server that no Hub gives.
func (c *Client) badServer(format string, args ...any) error {
	return fmt.Errorf("%s %s: refusing to download from it — check HF_ENDPOINT (a mirror?) or download over HTTPS: %w", c.Endpoint, fmt.Sprintf(format, args...), ErrBadServer)
}

// clip shortens a server's string for a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func (c *Client) newRequest(ctx context.Context, method, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, fmt.Errorf("bad Hub address %q (check HF_ENDPOINT): %w", u, err)
	}
	if c.Token != "" {
		// net/http drops this header when a redirect leaves the host (the CDN).
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	req.Header.Set("User-Agent", "edgechat")
	return req, nil
}

// apiTries is how many times an API call is tried when the server fails (5xx, a timeout);
// apiTimeout bounds each try; maxAnswer bounds one answer (a page of the file list of a real
// repository is a few hundred kB).
const (
	apiTries   = 3
	apiTimeout = time.Minute
	maxAnswer  = 16 << 20
)

// getJSON fetches u into v, retrying server failures with back-off.
func (c *Client) getJSON(ctx context.Context, repo, u string, v any) (http.Header, error) {
	for try := 1; ; try++ {
		h, err := c.getJSONOnce(ctx, repo, u, v)
		if err == nil || try == apiTries || ctx.Err() != nil || !retryable(err) || errors.Is(err, syscall.ECONNREFUSED) {
			return h, err
		}
		wait := c.Backoff
		if wait <= 0 {
			wait = time.Second
		}
		select {
		case <-time.After(wait << (try - 1)):
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

func (c *Client) getJSONOnce(ctx context.Context, repo, u string, v any) (http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodGet, u)
	if err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil && context.Cause(ctx) != context.DeadlineExceeded {
			return nil, context.Cause(ctx)
		}
		if host.ConnRefused(err) { // marked, so getJSON does not retry it
			return nil, fmt.Errorf("%w (%w)", netError(c.Endpoint, err), syscall.ECONNREFUSED)
		}
		return nil, netError(c.Endpoint, err)
	}
	defer resp.Body.Close()
	if err := c.statusError(repo, resp); err != nil {
		return nil, err
	}
	body := &io.LimitedReader{R: resp.Body, N: maxAnswer + 1}
	if err := json.NewDecoder(body).Decode(v); err != nil {
		if body.N <= 0 {
			return nil, c.badServer("answered %s with more than %s", u, Bytes(maxAnswer))
		}
		return nil, fmt.Errorf("%s answered %s with something that is not the Hub's API (%v): check HF_ENDPOINT and your proxy: %w", c.Endpoint, u, err, ErrNetwork)
	}
	return resp.Header, nil
}

// statusError maps a non-2xx answer to an error that says what to do.
func (c *Client) statusError(repo string, resp *http.Response) error {
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		return nil
	case (s == http.StatusUnauthorized || s == http.StatusForbidden) && resp.Header.Get("X-Error-Code") == "RepoNotFound":
		// The Hub answers 401 for a repository that does not exist (or is private).
		return fmt.Errorf("no model named %s on %s: check the spelling (ORG/NAME, as on the model's page); if it is private, set a Hugging Face token: %w", repo, c.Endpoint, ErrNotFound)
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return authError(repo, s, c.Token != "")
	case s == http.StatusNotFound:
		switch resp.Header.Get("X-Error-Code") {
		case "RevisionNotFound":
			return fmt.Errorf("%s has no such revision: check the part after @ (a branch, tag or commit): %w", repo, ErrNotFound)
		case "EntryNotFound":
			return fmt.Errorf("a file of %s is missing at this commit (%s): %w", repo, resp.Request.URL.Path, ErrNotFound)
		}
		msg := fmt.Sprintf("no model named %s on %s: check the spelling (ORG/NAME, as on the model's page)", repo, c.Endpoint)
		if c.Token == "" {
			msg += "; if it is private, set a Hugging Face token"
		}
		return fmt.Errorf("%s: %w", msg, ErrNotFound)
	case s == http.StatusProxyAuthRequired:
		return fmt.Errorf("the proxy asks for a login (HTTP 407): put the credentials in HTTPS_PROXY (http://user:password@host:port): %w", ErrNetwork)
	case s == http.StatusTooManyRequests:
		return fmt.Errorf("%s is rate-limiting this computer (HTTP 429): wait a few minutes, or set a Hugging Face token: %w", c.Endpoint, ErrNetwork)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode >= 500 {
		return fmt.Errorf("%s is having trouble (HTTP %d: %s): try again in a few minutes — a download continues where it stopped: %w", c.Endpoint, resp.StatusCode, strings.TrimSpace(string(body)), errStatus{resp.StatusCode})
	}
	return fmt.Errorf("%s answered HTTP %d (%s): %w", c.Endpoint, resp.StatusCode, strings.TrimSpace(string(body)), errStatus{resp.StatusCode})
}

// errStatus is an unexpected HTTP status; 5xx ones are retried.
type errStatus struct{ code int }

func (e errStatus) Error() string { return fmt.Sprintf("HTTP %d", e.code) }

// retryable reports whether err is worth another try (network trouble, a 5xx, a stall).
func retryable(err error) bool {
	var st errStatus
	if errors.As(err, &st) {
		return st.code >= 500
	}
	return errors.Is(err, ErrNetwork) || errors.Is(err, errStalled) || errors.Is(err, io.ErrUnexpectedEOF)
}
