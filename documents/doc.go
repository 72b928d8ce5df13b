// Package documents lets a conversation use the person's own files: it keeps copies of the
// attached files beside the conversation, reads and indexes them off the main goroutine, and
// before each reply puts the passages that answer the question (or the whole text, when it
// fits) into the question's user message, remembering them as the reply's sources.
//
// Document text is user text: it goes into the body of the last user message, which the
// engine tokenizes without matching special tokens, never into the system prompt, and it
// never changes a setting.
//
// Layout beside the conversations (see package history):
//
//	<id>.files/<name>               a copy of an attached file
//	<id>.files/.index/<name>.idx    its chunks and search index (package index)
package documents
