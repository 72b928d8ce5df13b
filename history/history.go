// Package history keeps conversations on disk so that they are never lost: one JSON file per
// conversation, written atomically, damaged files moved aside instead of deleted, deletions
// kept in a trash folder until restored.
//
// Layout of the data folder:
//
//	<id>.json              one conversation (see file.go for the format)
//	<id>.json.corrupt      a file that could not be read, kept for the user
//	.<id>.json.tmp-*       a save in progress (recovered or cleaned up by Open)
//	trash/<id>.json        a deleted conversation, restorable with Store.Restore
package history

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"edgechat/internal/safepath"
	"edgechat/reply"
)

// Stats describes how an assistant reply was generated.
type Stats struct {
	Backend        string `json:"backend,omitempty"`
	Device         string `json:"device,omitempty"`
	FallbackReason string `json:"fallback_reason,omitempty"`
	FinishReason   string `json:"finish_reason,omitempty"`
	// StopCause and ContextTokens say which limit ended the reply (reply.Summary's).
	StopCause string `json:"stop_cause,omitempty"`
	// Model names the model that wrote the reply.
	Model           string  `json:"model,omitempty"`
	ContextTokens   int     `json:"context_tokens,omitempty"`
	Error           string  `json:"error,omitempty"`
	PromptTokens    int     `json:"prompt_tokens,omitempty"`
	Tokens          int     `json:"tokens,omitempty"`
	ReusedTokens    int     `json:"reused_tokens,omitempty"`
	TrimmedMessages int     `json:"trimmed_messages,omitempty"`
	TTFTMillis      float64 `json:"ttft_ms,omitempty"`
	TokensPerSec    float64 `json:"tokens_per_sec,omitempty"`
	PrefillTPS      float64 `json:"prefill_tps,omitempty"`
	// LookupDrafted tokens were drafted by prompt lookup, LookupAccepted of them kept, in
	// LookupRuns decoder runs.
	LookupDrafted  int `json:"lookup_drafted,omitempty"`
	LookupAccepted int `json:"lookup_accepted,omitempty"`
	LookupRuns     int `json:"lookup_runs,omitempty"`
	// Power says the power mode the reply ran in: "battery saver (on battery (40%)): 4 CPU
	// threads, no spin-waiting, QNN balanced".
	Power string `json:"power,omitempty"`
}

// Message is one turn of a conversation.
type Message struct {
	ID       string    `json:"id"`
	Role     string    `json:"role"` // system, user, assistant
	Content  string    `json:"content"`
	Thinking string    `json:"thinking,omitempty"`
	Created  time.Time `json:"created"`
	Stats    *Stats    `json:"stats,omitempty"` // assistant replies
	// Sources are the passages of attached documents the reply was given.
	Sources []Source `json:"sources,omitempty"`
	// ToolCalls are the tools the reply called (MCP), in order, before its text.
	ToolCalls []ToolRun `json:"tool_calls,omitempty"`
}

// ToolRun is one tool call of a reply and what came of it.
type ToolRun struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Server    string `json:"server,omitempty"`
	Arguments string `json:"arguments"`
	// State is how it ended: "Done", "Failed" or "Denied".
	State  string  `json:"state"`
	Result string  `json:"result"`
	Millis float64 `json:"ms,omitempty"`
}

// Source is a passage of an attached document given to the model with a question.
type Source = reply.Source

// Attachment is a file attached to a conversation. The conversation keeps its own copy,
// File, in its attachments folder (see package documents), so the original may move.
type Attachment struct {
	Name  string    `json:"name"` // as the person named it
	File  string    `json:"file"` // the copy's name inside the attachments folder
	Size  int64     `json:"size"`
	Added time.Time `json:"added"`
}

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Conversation is a whole chat. Store.Save stamps Updated and fills in an empty ID or Title.
type Conversation struct {
	ID       string
	Title    string
	Created  time.Time
	Updated  time.Time
	Messages []Message
	// Attachments are the files whose passages go with each question.
	Attachments []Attachment
	// Model is the folder of the model the conversation goes on with, Device where it runs
	// ("npu" or "cpu") and Mode how it is used (ModeChat, or ModeComplete for a base model).
	// Conversations saved before these were kept have none: they go on with the model in force.
	Model, Device, Mode string
}

// Modes of a Conversation.
const (
	ModeChat     = "chat"
	ModeComplete = "complete" // a base model continues each message as text
)

// Summary is what the conversation list shows; it is read without loading the messages.
type Summary struct {
	ID, Title string
	Updated   time.Time
	Messages  int
}

// ErrNotFound is returned (wrapped) for a conversation that is not in the folder.
var ErrNotFound = errors.New("conversation not found")

// NewConversation returns an empty conversation with a new ID and Created/Updated set to now.
func NewConversation(title string) *Conversation {
	now := time.Now()
	return &Conversation{ID: NewID(), Title: title, Created: now, Updated: now}
}

// NewID returns a new identifier: 12 hex digits of Unix milliseconds then 16 random hex
// digits, so IDs sort by creation time and never collide in practice.
func NewID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("history: no randomness: %v", err)) // crypto/rand does not fail on supported systems
	}
	return fmt.Sprintf("%012x%s", time.Now().UnixMilli(), hex.EncodeToString(b[:]))
}

// validID accepts IDs that are safe as file names on every system: 1–64 of [0-9A-Za-z_-],
// and not a Windows device name (CON, NUL, COM1, …).
func validID(id string) bool {
	if id == "" || len(id) > 64 || safepath.Reserved(id) {
		return false
	}
	for _, r := range id {
		ok := r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_'
		if !ok {
			return false
		}
	}
	return true
}

// CheckID returns an error unless id can name a conversation (and its files: other packages
// name folders after it).
func CheckID(id string) error {
	if !validID(id) {
		return fmt.Errorf("invalid conversation id %q: expected up to 64 letters, digits, '-' or '_', and no device name such as CON or NUL", id)
	}
	return nil
}

// titleFrom derives a title from the first user message: its first line, at most 60 characters.
func titleFrom(c *Conversation) string {
	for _, m := range c.Messages {
		if m.Role != RoleUser {
			continue
		}
		line, _, _ := strings.Cut(strings.TrimSpace(m.Content), "\n")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > 60 {
			r := []rune(line)
			line = strings.TrimSpace(string(r[:59])) + "…"
		}
		return line
	}
	return "New conversation"
}

// clone returns a deep copy of c (messages and stats included).
func (c *Conversation) clone() *Conversation {
	out := *c
	out.Messages = make([]Message, len(c.Messages))
	copy(out.Messages, c.Messages)
	for i, m := range out.Messages {
		if m.Stats != nil {
			s := *m.Stats
			out.Messages[i].Stats = &s
		}
		out.Messages[i].Sources = slices.Clone(m.Sources)
		out.Messages[i].ToolCalls = slices.Clone(m.ToolCalls)
	}
	out.Attachments = slices.Clone(c.Attachments)
	return &out
}
