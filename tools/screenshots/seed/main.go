// Command seed writes one saved conversation into a data folder for tools/screenshots: an
// earlier question and its answer with thinking, a code block and the footer stats, as the
// history package stores them. The generated model the screenshots run never thinks (its
// weights are random), so this saved earlier turn is what shows the thinking section.
//
// With --document it writes instead an empty conversation with a 300-page PDF attached (a
// copy in the conversation's attachments folder, as the app keeps it), for the screenshot of
// a question over a document.
//
// Usage: go run ./tools/screenshots/seed --dir DATA_DIR [--document]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"edgechat/documents"
	"edgechat/history"
	"edgechat/internal/testkit/testdocs"
)

const question = "How do I read a large file line by line in Go without loading it all?"

const thinking = "The user wants to stream a big file instead of calling os.ReadFile. bufio.Scanner is " +
	"the usual answer, but its 64 KiB token limit makes very long lines fail, so I should raise the " +
	"buffer and remind them to check Err after the loop."

const answer = "Use a `bufio.Scanner`: it reads the file in chunks and hands you one line at a time, " +
	"so memory stays flat however big the file is.\n\n" +
	"```go\nsc := bufio.NewScanner(f) // f from os.Open; defer f.Close()\n" +
	"sc.Buffer(make([]byte, 0, 64*1024), 1024*1024) // lines up to 1 MiB\n" +
	"for sc.Scan() {\n\tprocess(sc.Text())\n}\nreturn sc.Err()\n```\n\n" +
	"Without `sc.Buffer` a line over 64 KiB stops the loop with `bufio.ErrTooLong`; check `sc.Err()` at the end."

func main() {
	dir := flag.String("dir", "", "data folder to write the conversation into (created if missing)")
	document := flag.Bool("document", false, "write a conversation with an attached PDF instead")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "seed: --dir is required")
		os.Exit(2)
	}
	run := seed
	if *document {
		run = seedDocument
	}
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

func seed(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	store, err := history.Open(dir)
	if err != nil {
		return err
	}
	asked := time.Now().Add(-3 * time.Minute)
	c := history.NewConversation("Reading a large file line by line")
	c.Created = asked
	c.Messages = append(c.Messages,
		history.Message{ID: history.NewID(), Role: history.RoleUser, Content: question, Created: asked},
		history.Message{
			ID: history.NewID(), Role: history.RoleAssistant, Content: answer, Thinking: thinking,
			Created: asked.Add(9 * time.Second),
			Stats: &history.Stats{
				Backend: "cpu", Device: "CPU", FinishReason: "stop",
				PromptTokens: 31, Tokens: 268, TTFTMillis: 412, TokensPerSec: 27.4, PrefillTPS: 96,
			},
		},
	)
	return store.Save(c)
}

// seedDocument writes a conversation titled after its attachment, a 300-page PDF with a fact
// on page 250 (internal/testkit/testdocs), and nothing asked yet.
func seedDocument(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	store, err := history.Open(dir)
	if err != nil {
		return err
	}
	src := filepath.Join(os.TempDir(), "Halvorsen archive.pdf")
	if err := os.WriteFile(src, testdocs.LongPDF(300, 250), 0o600); err != nil {
		return err
	}
	defer os.Remove(src)
	c := history.NewConversation("Halvorsen archive.pdf")
	a, err := (&documents.Store{Dir: dir}).Add(c.ID, src)
	if err != nil {
		return err
	}
	c.Attachments = append(c.Attachments, a)
	return store.Save(c)
}
