// Package reply is the contract between what produces replies (the engine, the remote client)
// and what consumes them (the window, the local server, the command line): the request, the
// events of a reply stream and the summary that ends it. It imports nothing heavy, so
// consumers and their tests build without ONNX Runtime.
package reply
