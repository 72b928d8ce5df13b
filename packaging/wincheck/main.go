// Command wincheck runs the code paths that differ on Windows — replacing a file another
// handle holds open, folders with spaces and non-ASCII names, paths past the old 260-character
// limit, the memory figures bench reports (GetProcessMemoryInfo) — on the system it runs on, and prints
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
	"edgechat/internal/rss"
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
	{"private memory (GetProcessMemoryInfo) sees 64 MB written", privateMemory},
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

// privateMemory writes 64 MB and reads the process's private memory before and after, as
// bench's memory figure does (PrivateUsage on Windows, RssAnon on Linux).
func privateMemory(string) (string, error) {
	if !rss.PrivateSupported {
		return "", fmt.Errorf("private memory is not supported on this platform")
	}
	before, err := rss.Private()
	if err != nil {
		return "", err
	}
	const size = 64 << 20
	buf := make([]byte, size)
	for i := 0; i < size; i += 4096 {
		buf[i] = 1
	}
	after, err := rss.Private()
	if err != nil {
		return "", err
	}
	if before == 0 && after == 0 {
		// Wine's GetProcessMemoryInfo (8 and 10) leaves PrivateUsage at zero; Windows fills it in.
		return "the call answers, but PrivateUsage is 0 (Wine does not fill it in: not checked)", nil
	}
	if after-before < size*3/4 {
		return "", fmt.Errorf("private memory went from %d to %d MB while the program wrote 64 MB", before>>20, after>>20)
	}
	sum := 0
	for i := 0; i < size; i += 4096 {
		sum += int(buf[i])
	}
	return fmt.Sprintf("%d MB → %d MB (%d pages written)", before>>20, after>>20, sum), nil
}
