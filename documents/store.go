package documents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"edgechat/documents/extract"
	"edgechat/history"
	"edgechat/internal/safepath"
	"edgechat/reply"
)

// Store keeps the copies of attached files in the conversations folder, one folder per
// conversation. Folder attachments (a whole folder, watched for changes) would keep a
// history.Attachment per file under the same folder and index each like any other file.
type Store struct {
	Dir     string // the conversations folder
	Library *Library
}

// folder is where conversation id keeps its attachments, relative to Dir.
func folder(id string) string { return id + ".files" }

// maxCopies bounds "name (2).ext", "name (3).ext", … in one conversation's folder.
const maxCopies = 1000

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
	if err := history.CheckID(id); err != nil {
		return history.Attachment{}, fmt.Errorf("cannot attach %s: %w", name, err)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return history.Attachment{}, fmt.Errorf("cannot attach %s: %w — check the data folder in Settings", name, err)
	}
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return history.Attachment{}, fmt.Errorf("cannot attach %s: %w — check the data folder in Settings", name, err)
	}
	defer root.Close()
	if err := root.MkdirAll(folder(id), 0o700); err != nil {
		return history.Attachment{}, fmt.Errorf("cannot attach %s: %w — check the data folder in Settings", name, err)
	}
	out, file, err := createFree(root, folder(id), safeName(name))
	if err != nil {
		return history.Attachment{}, fmt.Errorf("cannot copy %s: %w", name, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		root.Remove(filepath.Join(folder(id), file))
		return history.Attachment{}, fmt.Errorf("cannot copy %s: %w", name, err)
	}
	if err := out.Close(); err != nil {
		root.Remove(filepath.Join(folder(id), file))
		return history.Attachment{}, fmt.Errorf("cannot copy %s: %w", name, err)
	}
	return history.Attachment{Name: name, File: file, Size: st.Size(), Added: time.Now()}, nil
}

// Remove deletes the copy of a and its index. An attachment whose stored names cannot be a
// file of the conversation's folder has nothing there to delete.
func (s *Store) Remove(id string, a history.Attachment) error {
	r, ok := s.request(id, a)
	if !ok {
		return nil
	}
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

// Extensions are the file name endings Add reads by their name, sorted.
func (s *Store) Extensions() []string { return extract.Extensions() }

// Requests are the attachments of conversation id as the engine takes them. One whose stored
// names cannot be a file of the conversation's folder (a conversation file edited by hand, or
// from elsewhere) gets no path: reading it reports it missing.
func (s *Store) Requests(id string, as []history.Attachment) []reply.Attachment {
	out := make([]reply.Attachment, len(as))
	for i, a := range as {
		out[i], _ = s.request(id, a)
	}
	return out
}

// request is a as the engine takes it; false (and no paths) when id or a.File cannot name a
// file of the conversation's folder.
func (s *Store) request(id string, a history.Attachment) (reply.Attachment, bool) {
	file := filepath.Base(a.File) // a file from disk names no other folder
	if history.CheckID(id) != nil || safepath.Name(file) != nil {
		return reply.Attachment{Name: a.Name}, false
	}
	dir := filepath.Join(s.Dir, folder(id))
	return reply.Attachment{Name: a.Name, Path: filepath.Join(dir, file), IndexPath: filepath.Join(dir, ".index", file+".idx")}, true
}

// Index reads, indexes and embeds a now (call it off the UI goroutine), so the first
// question does not wait; status reports progress. It returns the document's Note: what
// was left unread (a PDF's scanned pages) and how to have it read. An embedding model that
// fails is not an error here: the question that uses the document says so.
func (s *Store) Index(ctx context.Context, id string, a history.Attachment, status func(msg string)) (note string, err error) {
	lib := s.Library
	if lib == nil {
		return "", nil
	}
	r, _ := s.request(id, a)
	d, err := lib.Open(ctx, r, status)
	if errors.Is(err, ErrNoEmbedding) {
		err = nil
	}
	if err != nil {
		return "", err
	}
	return d.Note, nil
}

// safeName keeps a file name usable on every system: characters Windows refuses and control
// characters become '_', as does a trailing dot or space; a leading dot (a hidden file, or
// the index folder) and a device name (CON, NUL, …) get a '_' before them; a long name is
// cut (keeping its extension).
func safeName(name string) string {
	name = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`<>:"/\|?*`, r) || r < ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, strings.ToValidUTF8(name, "_"))
	// Room for " (1000)" and a leading '_'.
	if limit := safepath.MaxName - 8; len(name) > limit {
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		name = strings.ToValidUTF8(name[:limit-len(ext)], "") + ext
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		name = name[:len(name)-1] + "_"
	}
	if name == "" || strings.HasPrefix(name, ".") || safepath.Reserved(name) {
		name = "_" + name
	}
	return name
}

// createFree creates name, or "name (2).ext", … when the folder dir (in root) already holds
// it, and returns the file and the name it got.
func createFree(root *os.Root, dir, name string) (*os.File, string, error) {
	ext := filepath.Ext(name)
	base := strings.TrimSuffix(name, ext)
	for i := 1; i <= maxCopies; i++ {
		n := name
		if i > 1 {
			n = fmt.Sprintf("%s (%d)%s", base, i, ext)
		}
		f, err := root.OpenFile(filepath.Join(dir, n), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, n, err
	}
	return nil, "", fmt.Errorf("the conversation already holds %d files named %s: remove some of them first", maxCopies, name)
}
