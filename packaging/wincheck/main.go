// Command wincheck runs the code paths that differ on Windows — replacing a file another
// handle holds open, folders with spaces and non-ASCII names, paths past the old 260-character
// limit, the memory calls that give back mapped pages — on the system it runs on, and prints
// one "ok"/"FAIL" line for each. packaging/check.sh builds it for windows/amd64 and runs it
// under Wine as the Windows user "Jürgen Müller"; it never ships. It leaves its files in the
// folder it is given (Wine 8 cannot run Go's os.RemoveAll): the caller deletes it.
//
//	wincheck DIR
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"edgechat/history"
	"edgechat/internal/atomicfile"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: wincheck DIR")
		os.Exit(2)
	}
	failed := 0
	for _, c := range checks {
		dir := filepath.Join(os.Args[1], c.name)
		detail, err := func() (string, error) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return "", err
			}
			return c.run(dir)
		}()
		if err != nil {
			failed++
			fmt.Printf("FAIL  %s: %v\n", c.name, err)
			continue
		}
		fmt.Printf("ok    %s: %s\n", c.name, detail)
	}
	if failed > 0 {
		os.Exit(1)
	}
}

var checks = []struct {
	name string
	run  func(dir string) (string, error)
}{
	{"replace a file another handle holds open", replaceWhileOpen},
	{"conversations in a path of more than 260 characters", longPath},
	{"give back the pages of a mapped file", releaseMapped},
}

// replaceWhileOpen holds a conversation file open (as a virus scanner or sync client would)
// for 300 ms while atomicfile replaces it; Windows refuses the rename while the handle lives.
func replaceWhileOpen(dir string) (string, error) {
	dir = filepath.Join(dir, "Jürgen's Ünïcode folder")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "conversation one.json")
	if err := atomicfile.Write(p, []byte("one"), nil); err != nil {
		return "", err
	}
	held, err := os.Open(p)
	if err != nil {
		return "", err
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		held.Close()
	}()
	start := time.Now()
	if err := atomicfile.Write(p, []byte("two"), nil); err != nil {
		return "", err
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "two" {
		return "", fmt.Errorf("after the replace the file holds %q (%v), want \"two\"", b, err)
	}
	return fmt.Sprintf("replaced after %d ms in %s", time.Since(start).Milliseconds(), dir), nil
}

// longPath saves, lists and loads a conversation in a folder whose path is longer than 260
// characters.
func longPath(dir string) (string, error) {
	for len(dir) < 280 {
		dir = filepath.Join(dir, "a folder with a long name ü")
	}
	s, err := history.Open(dir)
	if err != nil {
		return "", err
	}
	c := history.NewConversation("")
	c.Messages = []history.Message{{ID: "m1", Role: history.RoleUser, Content: "Grüß Gott, 日本語"}}
	for range 2 { // the second save replaces the file
		if err := s.Save(c); err != nil {
			return "", err
		}
	}
	again, err := history.Open(dir)
	if err != nil {
		return "", err
	}
	got, err := again.Load(c.ID)
	if err != nil {
		return "", err
	}
	if len(got.Messages) != 1 || got.Messages[0].Content != c.Messages[0].Content {
		return "", fmt.Errorf("loaded %+v, want the saved message", got.Messages)
	}
	if n := len(again.List()); n != 1 {
		return "", fmt.Errorf("the folder lists %d conversations, want 1", n)
	}
	return fmt.Sprintf("%d-character path %s…", len(s.Dir()), strings.TrimSuffix(s.Dir()[:60], `\`)), nil
}
