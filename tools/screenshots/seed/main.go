// Command seed writes one saved conversation into a data folder for tools/screenshots: an
// earlier question and its answer with thinking, a code block and the footer stats, as the
// history package stores them. The generated model the screenshots run never thinks (its
// weights are random), so this saved earlier turn is what shows the thinking section.
//
// With --document it writes instead an empty conversation with a 300-page PDF attached (a
// copy in the conversation's attachments folder, as the app keeps it), for the screenshot of
// a question over a document.
//
// With --markdown it writes a conversation whose question has line breaks and whose reply is
// Markdown that Fyne's own renderer used to change: punctuation after emphasis, single line
// breaks, a nested list, a table, inline HTML, math, CJK and emoji, a code block.
//
// Usage: go run ./tools/screenshots/seed --dir DATA_DIR [--document | --markdown]
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
	markdown := flag.Bool("markdown", false, "write a conversation with a tricky Markdown reply instead")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "seed: --dir is required")
		os.Exit(2)
	}
	run := seed
	if *document {
		run = seedDocument
	}
	if *markdown {
		run = seedMarkdown
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

const mdQuestion = "Write me a short poem!\nThen: a list, a table and a formula.\n**Stars** here are just stars."

const mdAnswer = "Hello! Here it is:\n\n" +
	"*The bird* sang loud!\nIt was fun.\nAs she walked, the **rain** came — and stopped?\n\n" +
	"1. First **one**!\n2. Second, with `code`\n   - inner *a*\n   - inner b\n3. Third.\n\n" +
	"| Model | Size | Runs on |\n|:--|--:|:--|\n| Qwen3 0.6B | 0.6 GB | NPU |\n| Phi-4 mini | 2.3 GB | CPU |\n\n" +
	"Math stays as written: $a_1 + b_1 = c_1$ and \\[ x = \\frac{a}{b} \\], Vec<String> too.\n" +
	"Emoji 🎉 and CJK: 你好，世界！\n\n" +
	"```python\nprint(\"hi!\")  # a code block\n```\n\n" +
	"See [the docs](https://example.com/docs)."

// seedMarkdown writes one finished turn with a Markdown reply.
func seedMarkdown(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	store, err := history.Open(dir)
	if err != nil {
		return err
	}
	asked := time.Now().Add(-2 * time.Minute)
	c := history.NewConversation("A poem, a list and a table")
	c.Created = asked
	c.Messages = append(c.Messages,
		history.Message{ID: history.NewID(), Role: history.RoleUser, Content: mdQuestion, Created: asked},
		history.Message{
			ID: history.NewID(), Role: history.RoleAssistant, Content: mdAnswer, Created: asked.Add(5 * time.Second),
			Stats: &history.Stats{
				Backend: "cpu", Device: "CPU", FinishReason: "stop",
				PromptTokens: 40, Tokens: 152, TTFTMillis: 230, TokensPerSec: 31.2, PrefillTPS: 120,
			},
		},
	)
	return store.Save(c)
}
