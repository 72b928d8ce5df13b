// Package tinygpt reads a real trained GPT-2-architecture model — conect2ai's TinyGPT-SLM, a
// question-answering model about a car's owner's manual, published as C++ source for
// microcontrollers (MIT licence; testdata/) — and converts it, exactly, into a Hugging Face
// ONNX folder: the Optimum-shaped GPT-2 graph of package synth, config.json, a WordLevel
// tokenizer.json that splits text as the model's own Python tokenizer did, and a chat
// template in its training format (<sos> question <sep> answer <eos>).
//
// The model: 4 layers, hidden 16, 8 heads of 2, a vocabulary of 445 words, 22 positions,
// pre-LayerNorm blocks, learned positions, GELU (tanh), no QKV bias, an untied output layer.
package tinygpt

import (
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The original files, as published (see testdata/README.md).
var (
	//go:embed testdata/gpt_model.cpp
	originalSource []byte
	//go:embed testdata/gpt_model.h
	originalHeader []byte
)

// Original is the published checkpoint: gpt_model.cpp (weights and vocabulary) and
// gpt_model.h (the shape).
func Original() (source, header []byte) { return originalSource, originalHeader }

// Checkpoint is the model as its C++ source holds it: row-major arrays in PyTorch's layout
// (nn.Linear weights [out, in]) and the vocabulary by id.
type Checkpoint struct {
	Vocab, Hidden, Positions, Layers, Heads int
	Special                                 map[string]int // SOS, EOS, PAD, UNK, SEP token ids
	Tokens                                  []string
	Arrays                                  map[string][]float32
}

var (
	defineRe = regexp.MustCompile(`(?m)^\s*#define\s+(\w+)\s+(-?\d+)\s*$`)
	arrayRe  = regexp.MustCompile(`(?s)const float MODEL_DATA_STORAGE (\w+)((?:\[[^\]]+\])+)\s*=\s*\{(.*?)\};`)
	numberRe = regexp.MustCompile(`-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?f`)
	tokensRe = regexp.MustCompile(`(?s)const char\* const token_strings\[VOCAB_SIZE\]\s*=\s*\{(.*?)\};`)
	stringRe = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
)

// Parse reads the checkpoint from the generated C++ source and header.
func Parse(source, header []byte) (*Checkpoint, error) {
	defs := map[string]int{}
	for _, m := range defineRe.FindAllSubmatch(header, -1) {
		n, _ := strconv.Atoi(string(m[2]))
		defs[string(m[1])] = n
	}
	c := &Checkpoint{Special: map[string]int{}, Arrays: map[string][]float32{}}
	for name, dst := range map[string]*int{"VOCAB_SIZE": &c.Vocab, "EMB_DIM": &c.Hidden, "CONTEXT_LENGTH": &c.Positions,
		"N_LAYERS": &c.Layers, "N_HEADS": &c.Heads} {
		v, ok := defs[name]
		if !ok || v <= 0 {
			return nil, fmt.Errorf("the header does not define %s", name)
		}
		*dst = v
	}
	for _, s := range []string{"SOS", "EOS", "PAD", "UNK", "SEP"} {
		v, ok := defs[s+"_TOKEN_ID"]
		if !ok {
			return nil, fmt.Errorf("the header does not define %s_TOKEN_ID", s)
		}
		c.Special[s] = v
	}
	if c.Hidden%c.Heads != 0 {
		return nil, fmt.Errorf("hidden size %d is not a multiple of %d heads", c.Hidden, c.Heads)
	}
	for _, m := range arrayRe.FindAllSubmatch(source, -1) {
		name := string(m[1])
		nums := numberRe.FindAll(m[3], -1)
		data := make([]float32, len(nums))
		for i, s := range nums {
			v, err := strconv.ParseFloat(string(s[:len(s)-1]), 32)
			if err != nil {
				return nil, fmt.Errorf("array %s: %v", name, err)
			}
			data[i] = float32(v)
		}
		want := 1
		for _, d := range strings.Split(strings.Trim(string(m[2]), "[]"), "][") {
			n, err := c.dim(d, defs)
			if err != nil {
				return nil, fmt.Errorf("array %s: %v", name, err)
			}
			want *= n
		}
		if len(data) != want {
			return nil, fmt.Errorf("array %s holds %d numbers, its declaration %s wants %d", name, len(data), m[2], want)
		}
		c.Arrays[name] = data
	}
	m := tokensRe.FindSubmatch(source)
	if m == nil {
		return nil, fmt.Errorf("no token_strings table in the source")
	}
	for _, s := range stringRe.FindAllSubmatch(m[1], -1) {
		t, err := strconv.Unquote(`"` + string(s[1]) + `"`)
		if err != nil {
			return nil, fmt.Errorf("token %d: %v", len(c.Tokens), err)
		}
		c.Tokens = append(c.Tokens, t)
	}
	if len(c.Tokens) != c.Vocab {
		return nil, fmt.Errorf("%d token strings for a vocabulary of %d", len(c.Tokens), c.Vocab)
	}
	return c, nil
}

// dim evaluates one array dimension of the source: a number, a #define, or 4*EMB_DIM.
func (c *Checkpoint) dim(s string, defs map[string]int) (int, error) {
	n := 1
	for _, f := range strings.Split(strings.TrimSpace(s), "*") {
		f = strings.TrimSpace(f)
		if v, err := strconv.Atoi(f); err == nil {
			n *= v
		} else if v, ok := defs[f]; ok {
			n *= v
		} else {
			return 0, fmt.Errorf("unknown dimension %q", s)
		}
	}
	return n, nil
}
