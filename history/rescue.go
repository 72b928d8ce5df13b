package history

import (
	"fmt"
	"os"
	"path/filepath"
)

// RescueDir is where Rescue writes conversations the data folder would not take: the user
// cache folder (another place than the data folder, often another disk), else the temp folder.
func RescueDir() string {
	if dir, err := os.UserCacheDir(); err == nil && dir != "" {
		return filepath.Join(dir, "EdgeChat", "unsaved")
	}
	return filepath.Join(os.TempDir(), "EdgeChat-unsaved")
}

// Rescue writes c, as a conversation file, to RescueDir and returns its path: the last
// resort for a conversation that could not be saved where it belongs. Copied back into the
// data folder, the file is an ordinary conversation. A conversation whose ID cannot name a
// file is written under a new ID.
func Rescue(c *Conversation) (string, error) {
	if !validID(c.ID) {
		cc := *c
		cc.ID = NewID()
		c = &cc
	}
	data, err := encode(c)
	if err != nil {
		return "", err
	}
	dir := RescueDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, c.ID+".json")
	if err := writeAtomic(path, data, nil); err != nil {
		return "", err
	}
	return path, nil
}
