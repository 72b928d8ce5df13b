// Package apitest drives the local server as its users' clients do: the official OpenAI and
// Anthropic npm clients, with ajv checking every tool call and JSON reply against its schema,
// against a real server on loopback with the real engine on a random-weight model. It holds
// only tests, in a test binary of their own (a whole engine and two models in memory).
package apitest
