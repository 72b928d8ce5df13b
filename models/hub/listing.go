package hub

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"edgechat/internal/safepath"
)

// Bounds on a file list. A real model repository lists tens to a few thousand files, on pages
// of up to 1,000 entries; no file of a model comes near a terabyte.
const (
	maxPages    = 1000
	maxEntries  = 20_000
	maxFileSize = 1 << 40
)

var (
	blobRe   = regexp.MustCompile(`^[0-9a-fA-F]{40}$`)
	sha256Re = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
	linkRe   = regexp.MustCompile(`<([^>]+)>\s*;\s*rel="?next"?`)
)

// Tree lists every file of repo at commit, following the API's pagination. It refuses
// (ErrBadServer) a list that names a path which cannot be a file inside a model's folder on
// every system, a size that cannot be, a hash that is not one, a path twice, more than
// maxPages pages or maxEntries entries, or a next page on another server (it would get the
// token).
func (c *Client) Tree(ctx context.Context, repo, commit string) ([]Entry, error) {
	next := fmt.Sprintf("%s/api/models/%s/tree/%s?recursive=true", c.Endpoint, repo, commit)
	pagesSeen, paths := map[string]bool{}, map[string]bool{}
	var files []Entry
	entries := 0
	for pages := 1; next != ""; pages++ {
		if pages > maxPages {
			return nil, c.badServer("lists the files of %s on more than %d pages", repo, maxPages)
		}
		pagesSeen[next] = true
		var page []Entry
		h, err := c.getJSON(ctx, repo, next, &page)
		if err != nil {
			return nil, err
		}
		if entries += len(page); entries > maxEntries {
			return nil, c.badServer("lists more than %d entries for %s", maxEntries, repo)
		}
		for _, e := range page {
			if err := checkEntry(e); err != nil {
				return nil, c.badServer("listed %v", err)
			}
			if paths[e.Path] {
				return nil, c.badServer("listed %q twice", e.Path)
			}
			paths[e.Path] = true
			if e.Type == "file" {
				files = append(files, e)
			}
		}
		if next, err = c.nextPage(next, h.Get("Link")); err != nil {
			return nil, err
		}
		if pagesSeen[next] {
			return nil, c.badServer("lists the files of %s in a circle (%s again)", repo, next)
		}
	}
	return files, nil
}

// checkEntry says what is wrong with an entry of the file list, or nil.
func checkEntry(e Entry) error {
	if err := safepath.Rel(e.Path); err != nil {
		return fmt.Errorf("the path %q, which cannot be a file inside a model's folder: %v", clip(e.Path), err)
	}
	if e.Type != "file" {
		return nil
	}
	switch {
	case e.Size < 0 || e.Size > maxFileSize:
		return fmt.Errorf("%s with the size %d bytes", e.Path, e.Size)
	case e.LFS != nil && e.LFS.Size != e.Size:
		return fmt.Errorf("%s with two sizes: %d bytes, and %d for its LFS object", e.Path, e.Size, e.LFS.Size)
	case e.LFS != nil && !sha256Re.MatchString(e.LFS.OID):
		return fmt.Errorf("%s with %q as its sha256", e.Path, clip(e.LFS.OID))
	case e.LFS == nil && !blobRe.MatchString(e.OID):
		return fmt.Errorf("%s with %q as its git hash", e.Path, clip(e.OID))
	}
	return nil
}

// checkNames refuses files whose paths differ only in case (on Windows and macOS they are one
// file), and names a pull keeps for itself in its staging folder.
func (c *Client) checkNames(files []Entry) error {
	seen := map[string]string{}
	for _, e := range files {
		if strings.HasPrefix(e.Path, stateFile) || strings.HasSuffix(e.Path, ".incomplete") {
			return c.badServer("lists %s, a name EdgeChat keeps for its own files while it downloads", e.Path)
		}
		k := strings.ToLower(e.Path)
		if other, ok := seen[k]; ok {
			return c.badServer("lists both %s and %s, which are one file on Windows", other, e.Path)
		}
		seen[k] = e.Path
	}
	return nil
}

// nextPage is the next page of the file list after cur (from its Link header), "" at the end;
// it must be on the Hub's own scheme and host.
func (c *Client) nextPage(cur, link string) (string, error) {
	next := nextLink(link)
	if next == "" {
		return "", nil
	}
	base, err := url.Parse(cur)
	if err != nil {
		return "", err
	}
	u, err := base.Parse(next)
	if err != nil {
		return "", c.badServer("gave %q as the next page of its file list", clip(next))
	}
	if ep, err := url.Parse(c.Endpoint); err != nil || u.Scheme != ep.Scheme || u.Host != ep.Host {
		return "", c.badServer("continues its file list on %s://%s", u.Scheme, u.Host)
	}
	return u.String(), nil
}

// nextLink returns the rel="next" URL of a Link header, or "".
func nextLink(h string) string {
	if m := linkRe.FindStringSubmatch(h); m != nil {
		return m[1]
	}
	return ""
}
