// Package inference runs chat models: it turns a conversation into a prompt, drives ONNX
// Runtime sessions through prefill and decode, samples tokens and streams the reply as events.
// It never imports Fyne.
package inference
