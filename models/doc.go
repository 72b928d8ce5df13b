// Package models describes a model folder a user brings: which layout it is (Hugging Face
// ONNX, onnxruntime-genai, a static NPU composite or a decoder-pipeline bundle), which files
// make it up, and what its configuration files say. It reads files only; running a model is
// the inference package's job. It never imports Fyne.
package models
