package models

// Reading a decoder graph's interface (names, shapes, KV layout) from its ONNX file, pure Go
// over onnx/proto: the decoders open sessions with it and Inspect describes folders.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"edgechat/internal/safepath"
	"edgechat/onnx/proto"
)

// KVPair names one layer's key and value tensors.
type KVPair struct{ Key, Value string }

// DecoderIO is what a decoder graph takes and gives, read from the graph itself.
type DecoderIO struct {
	InputIDs      string
	InputIDsType  string
	AttentionMask string // "" when the graph has none
	PositionIDs   string // "" when the graph has none
	// UseCacheBranch names the bool [1] input of a merged decoder (Optimum's
	// decoder_model_merged: false runs the branch without past); "" when the graph has none.
	UseCacheBranch string
	Past           []KVPair
	Present        []KVPair
	Logits         string
	KVType         string
	KVHeads        int
	// QueryHeads is the attention's query heads (the config's num_attention_heads); 0 when
	// no config says.
	QueryHeads int
	HeadDim    int
	Vocab      int
	// LastRow: the graph returns logits for the last new row only (an optimized copy).
	LastRow bool
	// LogitsToKeep names the int64 [1] input that says how many of the last new rows get
	// logits (an optimized copy made for multi-row verification); "" when the graph has none.
	LogitsToKeep string
	// KeepNone: LogitsToKeep may be 0, for a run whose logits nobody reads (a prefill chunk
	// before the prompt's last); only an optimized copy says so.
	KeepNone bool
	// SharedKV: the graph's attention is GroupQueryAttention, which appends the new rows in
	// place when one buffer is bound as both past and present (past_present_share_buffer).
	SharedKV bool
	// Static sizes (layout C); 0 for dynamic graphs.
	SeqLen   int
	MaxCache int
}

// Layers is the number of decoder layers (one past key/value pair each).
func (d *DecoderIO) Layers() int { return len(d.Past) }

// PastPattern and PresentPattern match the past-KV input names of the layouts EdgeChat knows:
// past_key_values.3.key (Hugging Face), past_3_key (static composite), past_key_values.3.value….
var (
	PastPattern    = regexp.MustCompile(`^past(?:_key_values)?[._](\d+)[._](key|value)$`)
	PresentPattern = regexp.MustCompile(`^present(?:_key_values)?[._](\d+)[._](key|value)$`)
)

// DescribeDecoder reads a decoder's interface from its graph's inputs and outputs; names maps
// genai_config.json roles to graph names (Folder.GenAINames). It refuses graphs that are not
// decoders with a message that says what is missing.
func DescribeDecoder(path string, in, out []proto.IO, names map[string]string) (*DecoderIO, error) {
	d := &DecoderIO{}
	byName := func(list []proto.IO, n string) (proto.IO, bool) {
		for _, v := range list {
			if v.Name == n {
				return v, true
			}
		}
		return proto.IO{}, false
	}
	pick := func(key, def string) string {
		if n, ok := names[key]; ok && n != "" {
			return n
		}
		return def
	}
	ids, ok := byName(in, pick("input_ids", "input_ids"))
	if !ok {
		return nil, fmt.Errorf("%s is not a text decoder: it has no input_ids input (inputs: %s)", path, ListNames(in))
	}
	d.InputIDs, d.InputIDsType = ids.Name, ids.ElemType
	if len(ids.Dims) == 2 && ids.Dims[1].Value > 0 {
		d.SeqLen = int(ids.Dims[1].Value)
	}
	if v, ok := byName(in, pick("attention_mask", "attention_mask")); ok {
		d.AttentionMask = v.Name
	}
	if v, ok := byName(in, pick("position_ids", "position_ids")); ok {
		d.PositionIDs = v.Name
	}
	if v, ok := byName(in, "use_cache_branch"); ok {
		if v.ElemType != "bool" {
			return nil, fmt.Errorf("%s: input use_cache_branch is %s; a merged decoder's is bool", path, v.ElemType)
		}
		d.UseCacheBranch = v.Name
	}
	logits, ok := byName(out, pick("logits", "logits"))
	if !ok {
		return nil, fmt.Errorf("%s is not a text decoder: it has no logits output (outputs: %s)", path, ListNames(out))
	}
	d.Logits = logits.Name
	if n := len(logits.Dims); n > 0 && logits.Dims[n-1].Value > 0 {
		d.Vocab = int(logits.Dims[n-1].Value)
	}
	if logits.ElemType != "float32" {
		return nil, fmt.Errorf("%s has %s logits; EdgeChat needs float32 logits (use an export whose logits are float32)", path, logits.ElemType)
	}
	var err error
	if d.Past, err = KVNames(in, PastPattern, names["past_key_names"], names["past_value_names"]); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if d.Present, err = KVNames(out, PresentPattern, names["present_key_names"], names["present_value_names"]); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(d.Past) == 0 {
		if name, ok := stackedPast(in); ok {
			return nil, fmt.Errorf("%s keeps each layer's key and value stacked in one input (%s, [2, batch, heads, past, head_dim]), as ONNX Runtime's older GPT-2 export tool wrote them; EdgeChat reads separate past_key_values.N.key and .value inputs — export the model again with Hugging Face Optimum (optimum-cli export onnx --task text-generation-with-past)", path, name)
		}
	}
	if len(d.Past) == 0 || len(d.Past) != len(d.Present) {
		return nil, fmt.Errorf("%s is not a decoder with a KV cache: found %d past and %d present key/value pairs", path, len(d.Past), len(d.Present))
	}
	past, _ := byName(in, d.Past[0].Key)
	if len(past.Dims) != 4 || past.Dims[1].Value <= 0 || past.Dims[3].Value <= 0 {
		return nil, fmt.Errorf("%s: past key %s has shape %v; expected [batch, kv_heads, seq, head_dim] with fixed heads and head_dim", path, past.Name, past.Dims)
	}
	d.KVType, d.KVHeads, d.HeadDim = past.ElemType, int(past.Dims[1].Value), int(past.Dims[3].Value)
	if past.Dims[2].Value > 0 {
		d.MaxCache = int(past.Dims[2].Value)
	}
	// int8: GroupQueryAttention's quantized cache, in EdgeChat's own copies (onnx/optimize's
	// QuantizeKV), which carry their scales.
	if d.KVType != "float32" && d.KVType != "float16" && d.KVType != "int8" {
		return nil, fmt.Errorf("%s: KV cache type %s is not supported (float32 or float16)", path, d.KVType)
	}
	return d, nil
}

// stackedPattern matches a layer's stacked past input: past_0, past.0, past_key_values_0.
var stackedPattern = regexp.MustCompile(`^past(?:_key_values)?[._](\d+)$`)

// stackedPast finds an input holding a layer's key and value in one tensor [2, …].
func stackedPast(in []proto.IO) (string, bool) {
	for _, v := range in {
		if stackedPattern.MatchString(v.Name) && len(v.Dims) == 5 && v.Dims[0].Value == 2 {
			return v.Name, true
		}
	}
	return "", false
}

// KVNames collects layer-indexed key/value names, by genai_config.json patterns when given
// (e.g. "past_key_values.%d.key"), else by the known naming schemes.
func KVNames(list []proto.IO, re *regexp.Regexp, keyFmt, valFmt string) ([]KVPair, error) {
	if keyFmt != "" && valFmt != "" {
		var out []KVPair
		have := map[string]bool{}
		for _, v := range list {
			have[v.Name] = true
		}
		for i := 0; ; i++ {
			k, v := fmt.Sprintf(keyFmt, i), fmt.Sprintf(valFmt, i)
			if !have[k] || !have[v] {
				return out, nil
			}
			out = append(out, KVPair{k, v})
		}
	}
	layers := map[int]*KVPair{}
	for _, v := range list {
		m := re.FindStringSubmatch(v.Name)
		if m == nil {
			continue
		}
		i, _ := strconv.Atoi(m[1])
		p := layers[i]
		if p == nil {
			p = &KVPair{}
			layers[i] = p
		}
		if m[2] == "key" {
			p.Key = v.Name
		} else {
			p.Value = v.Name
		}
	}
	idx := make([]int, 0, len(layers))
	for i := range layers {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]KVPair, 0, len(idx))
	for n, i := range idx {
		if i != n || layers[i].Key == "" || layers[i].Value == "" {
			return nil, fmt.Errorf("KV cache names are incomplete at layer %d", n)
		}
		out = append(out, *layers[i])
	}
	return out, nil
}

// ListNames lists the names of a few tensors for an error message.
func ListNames(list []proto.IO) string {
	s := ""
	for i, v := range list {
		if i > 0 {
			s += ", "
		}
		if i == 6 {
			return s + fmt.Sprintf("… %d in all", len(list))
		}
		s += v.Name
	}
	return s
}

// ReadGraph reads an ONNX file's interface and checks that the external data files it names
// are there: ONNX Runtime's own message for a missing one ("External data path validation
// failed…") does not say what to do.
func ReadGraph(path string) (*proto.ModelInfo, error) {
	info, err := proto.ReadInfo(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := CheckGraphNames(path, info); err != nil {
		return nil, err
	}
	for _, x := range ExternalPaths(path, info) {
		if _, err := os.Stat(x); err != nil {
			return nil, fmt.Errorf("%s keeps its weights in %s, which is missing from %s: copy it from the same download, next to %s",
				filepath.Base(path), filepath.Base(x), filepath.Dir(x), filepath.Base(path))
		}
	}
	return info, nil
}

// CheckGraphNames refuses a graph that names, for its weights or its NPU context binary, a
// file outside its own folder (an absolute path, "..", a drive, a device): the names come
// with the download, and are relative, slash-separated paths (ONNX's external data location).
func CheckGraphNames(path string, info *proto.ModelInfo) error {
	check := func(what, name string) error {
		if err := safepath.Rel(name); err != nil {
			return fmt.Errorf("%s names %s %q, which is not a file beside it (%v): EdgeChat opens only the model folder's own files — get the model from its original source", filepath.Base(path), what, name, err)
		}
		return nil
	}
	for _, x := range info.ExternalFiles {
		if err := check("its weights file", x); err != nil {
			return err
		}
	}
	for _, c := range info.EPContexts {
		if c.EmbedMode == 0 {
			if err := check("its NPU context binary", c.CacheContext); err != nil {
				return err
			}
		}
	}
	return nil
}

// ExternalPaths are the external data files a graph names, as paths beside it.
func ExternalPaths(path string, info *proto.ModelInfo) []string {
	out := make([]string, len(info.ExternalFiles))
	for i, x := range info.ExternalFiles {
		out[i] = filepath.Join(filepath.Dir(path), x)
	}
	return out
}

// GenAINames maps genai_config.json's input and output roles ("input_ids",
// "past_key_names"…) to the graph's names; empty for folders without that file.
func (f *Folder) GenAINames() map[string]string {
	names := map[string]string{}
	if f.GenAI != nil {
		for k, v := range f.GenAI.Model.Decoder.Inputs {
			names[k] = v
		}
		for k, v := range f.GenAI.Model.Decoder.Outputs {
			names[k] = v
		}
	}
	return names
}

// ShapeString writes a shape as [1,seq,64].
func ShapeString(d []proto.Dim) string {
	parts := make([]string, len(d))
	for i, x := range d {
		parts[i] = x.String()
	}
	return "[" + strings.Join(parts, ",") + "]"
}
