package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// Result is what a tool call returned.
type Result struct {
	Content []Content `json:"content"`
	// Structured is the tool's structuredContent, when it gives one.
	Structured json.RawMessage `json:"structuredContent,omitempty"`
	// IsError says the tool ran and failed; Content says why.
	IsError bool `json:"isError,omitempty"`
}

// Content is one block of a result: text, an image or audio (base64 Data), a link to a
// resource, or an embedded resource.
type Content struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	Data     string    `json:"data,omitempty"`
	MIMEType string    `json:"mimeType,omitempty"`
	URI      string    `json:"uri,omitempty"`
	Name     string    `json:"name,omitempty"`
	Resource *Resource `json:"resource,omitempty"`
}

// Resource is an embedded resource's contents.
type Resource struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// Text is the result as the model reads it in a tool message: the text blocks as they are,
// the others described in brackets (a model here reads no images), structured content when
// there is no text, and "Error: " before a failed tool's message.
func (r *Result) Text() string {
	var parts []string
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			parts = append(parts, c.Text)
		case "image", "audio":
			parts = append(parts, fmt.Sprintf("[%s %s, %s]", c.Type, c.MIMEType, size(base64.StdEncoding.DecodedLen(len(c.Data)))))
		case "resource_link":
			parts = append(parts, fmt.Sprintf("[resource %s %s]", c.Name, c.URI))
		case "resource":
			switch {
			case c.Resource == nil:
			case c.Resource.Text != "":
				parts = append(parts, c.Resource.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource %s %s, %s]", c.Resource.URI, c.Resource.MIMEType, size(base64.StdEncoding.DecodedLen(len(c.Resource.Blob)))))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%s content]", c.Type))
		}
	}
	if len(parts) == 0 && len(r.Structured) > 0 {
		parts = append(parts, string(r.Structured))
	}
	text := strings.Join(parts, "\n")
	if r.IsError {
		return "Error: " + text
	}
	return text
}

func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}
