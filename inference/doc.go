// Package inference is the engine: it turns a conversation into a prompt (rendered and
// tokenized once per request), fits it to the context, routes it to the first route that can
// serve it, runs prefill and decode on that route's Decoder, samples tokens, applies stop
// strings, reuses and keeps KV caches across turns and conversations, and streams the reply as
// reply events. It never imports Fyne or ONNX Runtime: decoders come from Config.Open
// (package inference/ort/decoder for ONNX Runtime).
package inference
