package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"edgechat/internal/atomicfile"
)

// fileVersion is written into every file so that a later format can still read old ones.
const fileVersion = 1

// fileV1 is the on-disk form of a conversation: compact JSON on one line, then "\n". The
// header fields come first so List reads only the start of each file; message_count saves
// counting the messages. Compact JSON escapes newlines, so the only "\n" is the last byte and
// a file that does not end in "}\n" was cut short.
type fileV1 struct {
	Version      int       `json:"version"`
	ID           string    `json:"id"`
	Title        string    `json:"title"`
	Created      time.Time `json:"created"`
	Updated      time.Time `json:"updated"`
	MessageCount int       `json:"message_count"`
	Messages     []Message `json:"messages"`
	// Attachments was added later; files without it have none.
	Attachments []Attachment `json:"attachments,omitempty"`
	// Model, Device and Mode were added later; files without them go on with the model in
	// force.
	Model  string `json:"model,omitempty"`
	Device string `json:"device,omitempty"`
	Mode   string `json:"mode,omitempty"`
}

func encode(c *Conversation) ([]byte, error) {
	f := fileV1{
		Version: fileVersion, ID: c.ID, Title: c.Title, Created: c.Created, Updated: c.Updated,
		MessageCount: len(c.Messages), Messages: c.Messages, Attachments: c.Attachments,
		Model: c.Model, Device: c.Device, Mode: c.Mode,
	}
	if f.Messages == nil {
		f.Messages = []Message{}
	}
	data, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

func decode(data []byte) (*Conversation, error) {
	var f fileV1
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if f.ID == "" {
		return nil, errors.New("no conversation id in the file")
	}
	return &Conversation{ID: f.ID, Title: f.Title, Created: f.Created, Updated: f.Updated, Messages: f.Messages, Attachments: f.Attachments,
		Model: f.Model, Device: f.Device, Mode: f.Mode}, nil
}

func readConversation(path string) (*Conversation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decode(data)
}

// readHeader reads the summary of the conversation file at path without decoding the
// messages: the header fields, plus a look at the last bytes to catch a truncated file.
func readHeader(path string) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, err
	}
	defer f.Close()
	if err := checkEnd(f); err != nil {
		return Summary{}, err
	}
	var h fileV1
	haveCount := false
	dec := json.NewDecoder(f)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return Summary{}, errors.New("not a conversation file (no JSON object)")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return Summary{}, err
		}
		key, _ := tok.(string)
		var dst any
		switch key {
		case "id":
			dst = &h.ID
		case "title":
			dst = &h.Title
		case "updated":
			dst = &h.Updated
		case "message_count":
			dst, haveCount = &h.MessageCount, true
		case "messages":
			if h.ID == "" || !haveCount { // not written by Save: read the whole file
				return summaryOfFile(path)
			}
			return Summary{ID: h.ID, Title: h.Title, Updated: h.Updated, Messages: h.MessageCount}, nil
		default:
			dst = new(json.RawMessage)
		}
		if err := dec.Decode(dst); err != nil {
			return Summary{}, fmt.Errorf("field %q: %w", key, err)
		}
	}
	return summaryOfFile(path)
}

func summaryOfFile(path string) (Summary, error) {
	c, err := readConversation(path)
	if err != nil {
		return Summary{}, err
	}
	return summaryOf(c), nil
}

func summaryOf(c *Conversation) Summary {
	return Summary{ID: c.ID, Title: c.Title, Updated: c.Updated, Messages: len(c.Messages)}
}

// checkEnd reports a file that was cut short: Save's files end in "}\n". A file that ends in
// "}" without it (edited by hand) is decoded in full instead. It leaves f at offset 0.
func checkEnd(f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.Size() == 0 {
		return errors.New("the file is empty")
	}
	tail := make([]byte, min(info.Size(), 64))
	if _, err := f.ReadAt(tail, info.Size()-int64(len(tail))); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	switch {
	case bytes.HasSuffix(tail, []byte("}\n")):
	case bytes.HasSuffix(bytes.TrimRight(tail, " \t\r\n"), []byte("}")):
		data, err := io.ReadAll(f)
		if err != nil {
			return err
		}
		if !json.Valid(data) {
			return errors.New("the file is not valid JSON")
		}
	default:
		head := make([]byte, min(info.Size(), 64))
		if _, err := f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if !bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("{")) {
			return errors.New("not a conversation file (no JSON object)")
		}
		return errors.New("the file is cut short (incomplete JSON)")
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}

// writeAtomic replaces path with data (see atomicfile.Write).
func writeAtomic(path string, data []byte, beforeRename func(tmp string) error) error {
	return atomicfile.Write(path, data, beforeRename)
}

// tmpMarker separates a conversation file name from the random suffix of its temporary file.
const tmpMarker = atomicfile.TempMarker

// syncDir makes a rename durable (best effort).
func syncDir(dir string) { atomicfile.SyncDir(dir) }

// moveAside renames path to path+suffix (then path+suffix.1, .2 …), never replacing a file.
func moveAside(path, suffix string) (string, error) {
	dst := path + suffix
	for i := 1; ; i++ {
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dst = fmt.Sprintf("%s%s.%d", path, suffix, i)
	}
	if err := os.Rename(path, dst); err != nil {
		return "", err
	}
	syncDir(filepath.Dir(path))
	return dst, nil
}

// checkWritable reports whether new files can be made in dir, by making and removing one.
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
