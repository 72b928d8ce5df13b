package hub

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"

	"edgechat/internal/host"
)

// Sentinel errors callers branch on (errors.Is).
var (
	// ErrAuth: the repository is gated or private (401/403).
	ErrAuth = errors.New("access denied")
	// ErrNotFound: no such repository, revision or file (404).
	ErrNotFound = errors.New("not found")
	// ErrDiskFull: not enough free space for the files.
	ErrDiskFull = errors.New("not enough disk space")
	// ErrVerify: a file's bytes did not match the hash the Hub lists.
	ErrVerify = errors.New("verification failed")
	// ErrNetwork: the server could not be reached or the connection kept failing.
	ErrNetwork = errors.New("network error")
	// ErrBadServer: the server's answer is impossible for a Hugging Face Hub (a commit id, a
	// path, a size, a file list that does not end): nothing is fetched from it, nor retried.
	ErrBadServer = errors.New("bad answer from the server")
	// ErrPaused is the cancel cause that pauses a download: its verified files and partial
	// files stay, and the next Pull continues from them.
	ErrPaused = errors.New("download paused")
	// ErrCancelled is the cancel cause that abandons a download: nothing it fetched is kept.
	ErrCancelled = errors.New("download cancelled")
)

// authError explains a 401/403.
func authError(repo string, status int, hasToken bool) error {
	what := "is gated or private"
	fix := "accept its terms on the Hub with your account, then set a Hugging Face token (Settings → Hugging Face token, or the HF_TOKEN environment variable)"
	if hasToken {
		fix = "your token is not accepted for it: check that the token is valid and that your account was granted access on the repository's page"
	}
	return fmt.Errorf("%s %s (HTTP %d): %s: %w", repo, what, status, fix, ErrAuth)
}

// netError turns a transport error into one a person can act on.
func netError(endpoint string, err error) error {
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	var ue *url.Error
	var op *net.OpError
	switch {
	case errors.As(err, &ua), errors.As(err, &ci):
		return fmt.Errorf("the certificate of %s is not trusted (%v): if your network inspects HTTPS, install its root certificate in the system's store (or point SSL_CERT_FILE at it): %w", endpoint, err, ErrNetwork)
	case errors.As(err, &hn):
		return fmt.Errorf("the certificate of %s is for another host (%v): check HF_ENDPOINT and your proxy: %w", endpoint, err, ErrNetwork)
	case errors.As(err, &op) && op.Op == "proxyconnect":
		return fmt.Errorf("the proxy refused or could not be reached (%v): check HTTPS_PROXY / the system's proxy settings: %w", err, ErrNetwork)
	case errors.As(err, &ue) && host.ConnRefused(err):
		return fmt.Errorf("cannot connect to %s (connection refused): check your network, or HF_ENDPOINT if you use a mirror: %w", endpoint, ErrNetwork)
	}
	return fmt.Errorf("cannot reach %s (%v): check your network connection and proxy settings, then try again — the download resumes where it stopped: %w", endpoint, err, ErrNetwork)
}

// diskFullError says how much space is missing.
func diskFullError(dir string, need, free int64) error {
	return fmt.Errorf("%s has %s free but the download needs %s more: free some space or choose another models folder (Settings → Models folder, or --models-dir): %w", dir, Bytes(free), Bytes(need), ErrDiskFull)
}

// Bytes formats n as "1.2 GB".
func Bytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
