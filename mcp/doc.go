// Package mcp is a client of the Model Context Protocol (revision 2025-11-25): it starts or
// reaches the MCP servers an mcp.json names, over stdio (a child process speaking
// newline-delimited JSON-RPC 2.0) or streamable HTTP (POST, JSON or server-sent-event answers,
// Mcp-Session-Id), lists their tools and calls them.
//
// A Host holds the configured servers, starts each on the first use and stops them all on
// Close; a server that crashes, hangs past the call timeout or talks nonsense is reported by
// an error naming it, and the others go on. Tool results come back as text for a "tool"
// message: data for the model, never markup of its own.
package mcp
