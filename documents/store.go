package documents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"edgechat/documents/extract"
	"edgechat/history"
	"edgechat/reply"
)

// Store keeps the copies of attached files in the conversations folder, one folder per
// conversation. Folder attachments (a whole folder, watched for changes) would keep a
// history.Attachment per file under the same folder and index each like any other file.
type Store struct {
	Dir     string // the conversations folder
	Library *Library
}

// folder is where conversation id keeps its attachments.
func (s *Store) folder(id string) string { return filepath.Join(s.Dir, id+".files") }

// Add copies the file at src into the conversation's folder and returns the attachment to
// list on the conversation. It refuses what extract cannot read by its name and size alone;
// Index tells about the rest.
func (s *Store) Add(id, src string) (history.Attachment, error) {
	name := filepath.Base(src)
	st, err := os.Stat(src)
	if err != nil {
		return history.Attachment{}, fmt.Errorf("cannot attach %s: %w", name, err)
	}
	if st.IsDir() {
		return history.Attachment{}, &extract.Unreadable{File: name, Err: extract.ErrUnsupported, Advice: "attach the files inside the folder"}
	}
	if st.Size() > extract.MaxFileBytes {
		return history.Attachment{}, extract.TooBig(name, st.Size())
	}
	in, err := os.Open(src)
	if err != nil {
		return history.Attachment{}, fmt.Errorf("cannot attach %s: %w", name, err)
	}
	defer in.Close()
	head := make([]byte, 8192)
	n, _ := io.ReadFull(in, head)
	if extract.FormatOf(name, head[:n]) == "" {
		return history.Attachment{}, &extract.Unreadable{File: name, Err: extract.ErrUnsupported, Advice: "save it as PDF, DOCX, HTML or plain text and attach that"}
	}
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return history.Attachment{}, err
	}
	dir := s.folder(id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return history.Attachment{}, fmt.Errorf("cannot attach %s: %w — check the data folder in Settings", name, err)
	}
	file := freeName(dir, safeName(name))
	out, err := os.OpenFile(filepath.Join(dir, file), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return history.Attachment{}, fmt.Errorf("cannot copy %s: %w", name, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(out.Name())
		return history.Attachment{}, fmt.Errorf("cannot copy %s: %w", name, err)
	}
	if err := out.Close(); err != nil {
		os.Remove(out.Name())
		return history.Attachment{}, fmt.Errorf("cannot copy %s: %w", name, err)
	}
	return history.Attachment{Name: name, File: file, Size: st.Size(), Added: time.Now()}, nil
}

// Remove deletes the copy of a and its index.
func (s *Store) Remove(id string, a history.Attachment) error {
	r := s.request(id, a)
	if s.Library != nil {
		s.Library.Forget(r.Path)
	}
	for _, p := range []string{r.IndexPath, VectorsPath(r.IndexPath)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.Remove(r.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot remove the copy of %s: %w", a.Name, err)
	}
	return nil
}

// Requests are the attachments of conversation id as the engine takes them.
func (s *Store) Requests(id string, as []history.Attachment) []reply.Attachment {
	out := make([]reply.Attachment, len(as))
	for i, a := range as {
		out[i] = s.request(id, a)
	}
	return out
}

func (s *Store) request(id string, a history.Attachment) reply.Attachment {
	dir := s.folder(id)
	file := filepath.Base(a.File) // a file from disk names no other folder
	return reply.Attachment{Name: a.Name, Path: filepath.Join(dir, file), IndexPath: filepath.Join(dir, ".index", file+".idx")}
}

// Index reads, indexes and embeds a now (call it off the UI goroutine), so the first
// question does not wait; status reports progress. An embedding model that fails is not an
// error here: the question that uses the document says so.
func (s *Store) Index(ctx context.Context, id string, a history.Attachment, status func(msg string)) error {
	lib := s.Library
	if lib == nil {
		return nil
	}
	_, err := lib.Open(ctx, s.request(id, a), status)
	if errors.Is(err, ErrNoEmbedding) {
		return nil
	}
	return err
}

// safeName keeps a file name usable on every system.
func safeName(name string) string {
	name = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`<>:"/\|?*`, r) || r < ' ' {
			return '_'
		}
		return r
	}, name)
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		name = "_" + name
	}
	return name
}

// freeName is name, or "name (2).ext", … when the folder already holds it.
func freeName(dir, name string) string {
	ext := filepath.Ext(name)
	base := strings.TrimSuffix(name, ext)
	for i := 1; ; i++ {
		n := name
		if i > 1 {
			n = fmt.Sprintf("%s (%d)%s", base, i, ext)
		}
		if _, err := os.Lstat(filepath.Join(dir, n)); errors.Is(err, os.ErrNotExist) {
			return n
		}
	}
}
