package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
)

// Embedder is what POST /v1/embeddings needs: texts to vectors (documents.Embedder and
// inference/decoder.Embedder are such), and what a text costs in tokens.
type Embedder interface {
	EmbedPassages(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error)
	// TokenCount is how many tokens text is embedded as, before any cut.
	TokenCount(text string) int
	// TokenLimit is the most tokens a text may have.
	TokenLimit() int
}

var embeddingsPolicy = newFieldPolicy(embeddingsRequest{}, nil)

// maxEmbeddingInputs bounds the texts of one request, as OpenAI does.
const maxEmbeddingInputs = 2048

// embeddingsRequest is OpenAI's embeddings request.
type embeddingsRequest struct {
	Input          json.RawMessage `json:"input"`
	Model          string          `json:"model"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions"`
	User           string          `json:"user"`
}

type embeddingList struct {
	Object string           `json:"object"` // "list"
	Data   []embeddingEntry `json:"data"`
	Model  string           `json:"model"`
	Usage  embeddingUsage   `json:"usage"`
}

type embeddingEntry struct {
	Object    string `json:"object"` // "embedding"
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"` // []float32, or a base64 string of little-endian float32s
}

type embeddingUsage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// handleEmbeddings serves POST /v1/embeddings with the embedding model Options.Embeddings
// opens (on the first request; the chat model's queue is not involved).
func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	if s.shuttingDown() {
		writeError(w, shuttingDownError())
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes))
	if err != nil {
		writeError(w, newError(http.StatusRequestEntityTooLarge, "invalid_request_error", "request_too_large", "the request body is over the server's limit of "+byteSize(s.opt.MaxBodyBytes)))
		return
	}
	var er embeddingsRequest
	if aerr := decodeChecked(body, &er, embeddingsPolicy); aerr != nil {
		writeError(w, aerr)
		return
	}
	texts, aerr := er.texts()
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if s.opt.Embeddings == nil {
		writeError(w, newError(http.StatusNotFound, "invalid_request_error", "model_not_found", "this server has no embedding model: start it with --embedding-model DIR (a Qwen3-Embedding folder), or put one in the models folder"))
		return
	}
	emb, name, err := s.opt.Embeddings()
	if err != nil || emb == nil {
		msg := "no embedding model was found: start the server with --embedding-model DIR (a Qwen3-Embedding folder)"
		if err != nil {
			msg = "the embedding model cannot be opened: " + err.Error()
		}
		writeError(w, newError(http.StatusNotFound, "invalid_request_error", "model_not_found", msg))
		return
	}
	usage := 0
	for i, t := range texts {
		n := emb.TokenCount(t)
		if limit := emb.TokenLimit(); limit > 0 && n > limit {
			writeError(w, badParam("input", "context_length_exceeded", fmt.Sprintf("input[%d]: %d tokens, over the embedding model's limit of %d; split the text", i, n, limit)))
			return
		}
		usage += n
	}
	vecs, err := emb.EmbedPassages(r.Context(), texts, nil)
	if err != nil {
		if r.Context().Err() == nil {
			writeError(w, newError(http.StatusInternalServerError, "server_error", "embedding_failed", "the embedding model failed: "+err.Error()))
		}
		return
	}
	out := embeddingList{Object: "list", Model: cmpOr(name, er.Model), Usage: embeddingUsage{PromptTokens: usage, TotalTokens: usage}}
	for i, v := range vecs {
		if er.Dimensions != nil {
			if *er.Dimensions > len(v) {
				writeError(w, badParam("dimensions", "invalid_dimensions", fmt.Sprintf("dimensions: %d is more than the model's %d", *er.Dimensions, len(v))))
				return
			}
			v = shorten(v, *er.Dimensions)
		}
		entry := embeddingEntry{Object: "embedding", Index: i, Embedding: v}
		if er.EncodingFormat == "base64" {
			entry.Embedding = base64Floats(v)
		}
		out.Data = append(out.Data, entry)
	}
	writeJSON(w, http.StatusOK, out)
}

// texts checks the request and returns its texts: input is a string or an array of them.
func (er *embeddingsRequest) texts() ([]string, *apiError) {
	switch er.EncodingFormat {
	case "", "float", "base64":
	default:
		return nil, badParam("encoding_format", "invalid_encoding_format", fmt.Sprintf(`encoding_format: %q is not "float" or "base64"`, er.EncodingFormat))
	}
	if er.Dimensions != nil && *er.Dimensions < 1 {
		return nil, badParam("dimensions", "invalid_dimensions", "dimensions: must be at least 1")
	}
	raw := bytes.TrimSpace(er.Input)
	var texts []string
	if len(raw) > 0 && raw[0] == '"' {
		var one string
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, jsonError(err)
		}
		texts = []string{one}
	} else if err := json.Unmarshal(raw, &texts); err != nil || len(raw) == 0 {
		msg := "input: expected a string or an array of strings"
		if len(raw) > 0 && raw[0] == '[' && strings.ContainsAny(string(raw[1:2]), "0123456789[") {
			msg = "input: token arrays are not supported; send the text"
		}
		return nil, badParam("input", "invalid_input", msg)
	}
	switch {
	case len(texts) == 0:
		return nil, badParam("input", "invalid_input", "input: at least one text is required")
	case len(texts) > maxEmbeddingInputs:
		return nil, badParam("input", "invalid_input", fmt.Sprintf("input: %d texts, more than %d in one request", len(texts), maxEmbeddingInputs))
	}
	for i, t := range texts {
		if t == "" {
			return nil, badParam("input", "invalid_input", fmt.Sprintf("input[%d]: the text is empty", i))
		}
	}
	return texts, nil
}

// shorten keeps the first n dimensions and scales them back to unit length (Qwen3-Embedding
// is trained for that: Matryoshka representation learning).
func shorten(v []float32, n int) []float32 {
	out := append([]float32(nil), v[:n]...)
	var sum float64
	for _, x := range out {
		sum += float64(x) * float64(x)
	}
	if sum > 0 {
		scale := float32(1 / math.Sqrt(sum))
		for i := range out {
			out[i] *= scale
		}
	}
	return out
}

// base64Floats encodes v as OpenAI's base64 format: little-endian float32s.
func base64Floats(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
