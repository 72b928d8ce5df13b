package ui

import (
	"context"

	"edgechat/reply"

	"edgechat/config"
	"edgechat/history"
)

// Engine streams one assistant reply. The channel ends with an EventDone and is closed by
// the producer; cancelling ctx stops the reply.
type Engine interface {
	Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error)
}

// ModelTester loads the model of one route and returns its inspect summary (Settings' Test).
type ModelTester interface {
	Test(ctx context.Context, route config.Route, ortLibrary string) (string, error)
}

// Conversations is the part of the history store the window uses.
type Conversations interface {
	List() []history.Summary
	Search(q string) []history.Summary
	Load(id string) (*history.Conversation, error)
	Save(c *history.Conversation) error
	Delete(id string) error
	Restore(id string) error
}

// Autosaver owns one open conversation and writes it in the background; every change goes
// through Update. Close writes what is pending.
type Autosaver interface {
	Update(func(c *history.Conversation))
	Close() error
	// Notify sets a function called, from any goroutine, after each save with its error
	// (nil once saving works again).
	Notify(func(err error))
}

// AttachmentFiles keeps the copies of files attached to conversations (documents.Store).
type AttachmentFiles interface {
	Add(conversationID, path string) (history.Attachment, error)
	Remove(conversationID string, a history.Attachment) error
	// Extensions are the file name endings Add reads by their name: the file dialog's filter.
	Extensions() []string
	// Requests are the attachments as the engine takes them.
	Requests(conversationID string, as []history.Attachment) []reply.Attachment
	// Index reads and indexes a file ahead of the first question, reporting progress. Its
	// note says what was left unread (a PDF's scanned pages) and how to have it read.
	Index(ctx context.Context, conversationID string, a history.Attachment, status func(msg string)) (note string, err error)
}

// SettingsStore reads and writes the settings file.
type SettingsStore interface {
	Settings() config.Settings
	Save(config.Settings) error
}

// EPChecker is what a ModelTester may also do: say whether the loaded ONNX Runtime has an
// execution provider ("qnn", "dml"…), so the settings pane flags it inline. nil means it does
// or cannot tell yet.
type EPChecker interface {
	CheckEP(ep string) error
}
