package history

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Store is the folder of conversations. It keeps the summaries (and, once searched, the
// lowercased text) in memory and reads bodies on demand. It is safe for concurrent use; a
// *Conversation passed to Save must not be changed by another goroutine during the call.
type Store struct {
	dir string

	writeMu sync.Mutex // serialises file operations (write, delete, restore)

	mu       sync.Mutex
	entries  map[string]*entry
	problems []string

	// beforeRename, when set by tests, runs between writing a temp file and renaming it.
	beforeRename func(tmp string) error
}

type entry struct {
	sum    Summary
	text   string // title and message text, lowercased, for Search
	hasTxt bool
}

const trashDir = "trash"

// Open opens (creating if needed) the conversation folder dir and reads every file's summary.
// Damaged files are moved aside to NAME.corrupt and reported by Problems; a save that was
// interrupted is completed when its temporary file is whole and newer, otherwise discarded.
func Open(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("no folder for conversations: set data_dir in the settings")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create conversation folder %s: %w — choose a folder you can write to", dir, err)
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read conversation folder %s: %w", dir, err)
	}
	s := &Store{dir: dir, entries: map[string]*entry{}}
	var temps []string
	for _, de := range des {
		name := de.Name()
		switch {
		case de.IsDir():
		case strings.HasPrefix(name, ".") && strings.Contains(name, ".json"+tmpMarker):
			temps = append(temps, name)
		case strings.HasSuffix(name, ".json") && validID(strings.TrimSuffix(name, ".json")):
			s.scan(strings.TrimSuffix(name, ".json"))
		}
	}
	for _, name := range temps {
		s.recoverTemp(name)
	}
	if err := checkWritable(dir); err != nil {
		s.problems = append(s.problems, fmt.Sprintf("the conversation folder %s is not writable (%v): conversations can be read, but new messages and replies cannot be saved — make the folder writable, or choose another data folder in Settings and restart", dir, err))
	}
	return s, nil
}

func (s *Store) path(id string) string { return filepath.Join(s.dir, id+".json") }

// scan reads one file's summary into the index, moving the file aside when it is damaged.
func (s *Store) scan(id string) {
	sum, err := readHeader(s.path(id))
	if err == nil && sum.ID != id {
		err = fmt.Errorf("it says it holds conversation %q", sum.ID)
	}
	var ioErr *fs.PathError
	if errors.As(err, &ioErr) { // could not read it: not the file's fault, leave it alone
		s.problems = append(s.problems, fmt.Sprintf("conversation file %s could not be read: %v", s.path(id), err))
		return
	}
	if err != nil {
		s.quarantine(id, err)
		return
	}
	s.entries[id] = &entry{sum: sum}
}

// quarantine moves a damaged conversation file to NAME.corrupt and records the problem.
// The caller holds s.mu or has not shared s yet.
func (s *Store) quarantine(id string, cause error) string {
	path := s.path(id)
	delete(s.entries, id)
	moved, err := moveAside(path, ".corrupt")
	if err != nil {
		s.problems = append(s.problems, fmt.Sprintf("conversation file %s could not be read (%v) and could not be moved aside (%v); it is left in place", path, cause, err))
		return path
	}
	s.problems = append(s.problems, fmt.Sprintf("conversation file %s could not be read (%v); it was set aside as %s, not deleted, and the other conversations are fine", path, cause, moved))
	return moved
}

// recoverTemp deals with ".<id>.json.tmp-*" left by a save that was interrupted: a whole file
// newer than <id>.json replaces it; a broken one is removed when <id>.json exists and is kept
// as .corrupt when it is all there is.
func (s *Store) recoverTemp(name string) {
	tmp := filepath.Join(s.dir, name)
	id, _, _ := strings.Cut(strings.TrimPrefix(name, "."), ".json"+tmpMarker)
	if !validID(id) {
		return
	}
	c, err := readConversation(tmp)
	cur, have := s.entries[id]
	switch {
	case err == nil && c.ID == id && (!have || c.Updated.After(cur.sum.Updated)):
		if err := os.Rename(tmp, s.path(id)); err != nil {
			s.problems = append(s.problems, fmt.Sprintf("an interrupted save of %q is in %s but could not be completed: %v", c.Title, tmp, err))
			return
		}
		syncDir(s.dir)
		s.entries[id] = &entry{sum: summaryOf(c)}
		s.problems = append(s.problems, fmt.Sprintf("conversation %q was recovered from an interrupted save: its latest version is kept and nothing was set aside", c.Title))
	case have:
		os.Remove(tmp) // the previous version is whole; the temp holds nothing newer
	default:
		cause := err
		if cause == nil {
			cause = fmt.Errorf("it says it holds conversation %q", c.ID)
		}
		moved, merr := moveAside(tmp, ".corrupt")
		if merr != nil {
			moved = tmp
		}
		s.problems = append(s.problems, fmt.Sprintf("an interrupted save could not be read (%v); its data is kept in %s", cause, moved))
	}
}

// Dir returns the conversation folder.
func (s *Store) Dir() string { return s.dir }

// List returns the summaries of all conversations, most recently updated first.
func (s *Store) List() []Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Summary, 0, len(s.entries))
	for _, e := range s.entries {
		out = append(out, e.sum)
	}
	sortNewestFirst(out)
	return out
}

func sortNewestFirst(list []Summary) {
	slices.SortFunc(list, func(a, b Summary) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
}

// Load reads a whole conversation. A damaged file is moved aside (see Problems) and Load
// returns an error saying where it went.
func (s *Store) Load(id string) (*Conversation, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		s.mu.Lock()
		delete(s.entries, id)
		s.mu.Unlock()
		return nil, fmt.Errorf("load conversation %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load conversation %s: %w", id, err)
	}
	c, err := decode(data)
	if err == nil && c.ID != id {
		err = fmt.Errorf("it says it holds conversation %q", c.ID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		moved := s.quarantine(id, err)
		return nil, fmt.Errorf("conversation %s is damaged (%v); the file was moved to %s", id, err, moved)
	}
	if e, ok := s.entries[id]; !ok || !e.sum.Updated.After(c.Updated) { // a Save may have raced ahead
		s.entries[id] = &entry{sum: summaryOf(c), text: searchText(c), hasTxt: true}
	}
	return c, nil
}

// Save writes c atomically and updates its summary. It sets c.Updated to now, and fills in
// c.ID (NewID) and c.Title (from the first user message) when they are empty.
func (s *Store) Save(c *Conversation) error {
	if c == nil {
		return errors.New("save conversation: nil conversation")
	}
	if c.ID == "" {
		c.ID = NewID()
	}
	if err := CheckID(c.ID); err != nil {
		return err
	}
	if c.Title == "" {
		c.Title = titleFrom(c)
	}
	now := time.Now()
	if c.Created.IsZero() {
		c.Created = now
	}
	c.Updated = now
	data, err := encode(c)
	if err != nil {
		return fmt.Errorf("save conversation %q: %w", c.Title, err)
	}
	text := searchText(c)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if err := writeAtomic(s.path(c.ID), data, s.beforeRename); err != nil {
		return fmt.Errorf("save conversation %q to %s: %w — check that the folder exists, is writable and the disk is not full", c.Title, s.dir, err)
	}
	s.mu.Lock()
	s.entries[c.ID] = &entry{sum: summaryOf(c), text: text, hasTxt: true}
	s.mu.Unlock()
	return nil
}

// Delete moves the conversation to the trash folder; Restore brings it back. Close the
// conversation's Autosaver first: a later save writes the conversation back.
func (s *Store) Delete(id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	src := s.path(id)
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete conversation %s: %w", id, ErrNotFound)
	}
	trash := filepath.Join(s.dir, trashDir)
	if err := os.MkdirAll(trash, 0o700); err != nil {
		return fmt.Errorf("delete conversation %s: create trash folder: %w", id, err)
	}
	dst := filepath.Join(trash, id+".json")
	if _, err := os.Lstat(dst); err == nil { // an older deleted copy: keep it under another name
		if _, err := moveAside(dst, ".old-"+time.Now().Format("20060102-150405")); err != nil {
			return fmt.Errorf("delete conversation %s: %w", id, err)
		}
	}
	if err := os.Rename(src, dst); err != nil {
		return fmt.Errorf("delete conversation %s: %w", id, err)
	}
	syncDir(s.dir)
	syncDir(trash)
	s.mu.Lock()
	delete(s.entries, id)
	s.mu.Unlock()
	return nil
}

// Restore moves a deleted conversation back from the trash folder.
func (s *Store) Restore(id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	src := filepath.Join(s.dir, trashDir, id+".json")
	dst := s.path(id)
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore conversation %s: %w in the trash", id, ErrNotFound)
	}
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("restore conversation %s: a conversation with this id already exists; the deleted copy stays in %s", id, src)
	}
	if err := os.Rename(src, dst); err != nil {
		return fmt.Errorf("restore conversation %s: %w", id, err)
	}
	syncDir(s.dir)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scan(id)
	return nil
}

// Problems returns human-readable reports of damaged files found and what was done with them.
func (s *Store) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.problems)
}
