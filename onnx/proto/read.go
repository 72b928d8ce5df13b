package proto

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// ModelInfo is what ReadInfo learns about a model without loading its weights.
type ModelInfo struct {
	IRVersion       int64
	Producer        string
	ProducerVersion string
	Opsets          []Opset
	// Inputs are the graph inputs a caller feeds (initializers listed as inputs are left out).
	Inputs  []IO
	Outputs []IO
	// Initializers counts the weights; InitializerBytes sums their inline data.
	Initializers     int
	InitializerBytes int64
	// WeightBytes sums every weight's bytes, inline or in an external file (-1 when an
	// external weight does not give its length); TableBytes those of the weights read a row at
	// a time (the data of Gather nodes: embedding tables). A decode step reads about
	// WeightBytes − TableBytes.
	WeightBytes, TableBytes int64
	// ExternalFiles are the files named by external-data initializers, sorted.
	ExternalFiles []string
	// Ops counts nodes by OpKey(domain, op type).
	Ops        map[string]int
	EPContexts []EPContext
	Metadata   map[string]string
	// NBits counts com.microsoft MatMulNBits nodes by their quantization (nil when none).
	NBits map[NBits]int
}

// NBits is how a MatMulNBits node quantizes its weight. AccuracyLevel 0 means the attribute is
// absent (ONNX Runtime's float32 path); 4 asks for int8 compute.
type NBits struct {
	Bits, BlockSize, AccuracyLevel int64
	ZeroPoints                     bool
}

// IO describes one graph input or output. ElemType is "float32", "float16", "int64", …, or ""
// for a value that is not a tensor.
type IO struct {
	Name     string
	ElemType string
	Dims     []Dim
}

// EPContext holds the attributes of an EPContext node (a precompiled NPU graph).
type EPContext struct {
	Node string
	// CacheContext is ep_cache_context: with EmbedMode 0 the file name of the context binary,
	// relative to the model; with EmbedMode 1 the binary itself, which is not read: EmbeddedBytes
	// is its length.
	CacheContext  string
	EmbedMode     int64
	EmbeddedBytes int64
	Source        string
	MainContext   int64
}

// OpKey names an operator for ModelInfo.Ops: the op type for the standard domain, else
// "domain:op" ("com.microsoft:GroupQueryAttention").
func OpKey(domain, op string) string {
	if domain == "" || domain == "ai.onnx" {
		return op
	}
	return domain + ":" + op
}

// OpTypes lists the keys of Ops, sorted.
func (mi *ModelInfo) OpTypes() []string { return slices.Sorted(maps.Keys(mi.Ops)) }

// Input returns the input called name.
func (mi *ModelInfo) Input(name string) (IO, bool) { return find(mi.Inputs, name) }

// Output returns the output called name.
func (mi *ModelInfo) Output(name string) (IO, bool) { return find(mi.Outputs, name) }

func find(ios []IO, name string) (IO, bool) {
	for _, io := range ios {
		if io.Name == name {
			return io, true
		}
	}
	return IO{}, false
}

// ErrNotONNX is wrapped by errors about files that are not ONNX models.
var ErrNotONNX = errors.New("not an ONNX model")

// ReadInfo reads a model's interface from path. It reads only the bytes of the fields it needs
// and skips weights, so it is quick on multi-gigabyte files, and it builds no ONNX Runtime session.
func ReadInfo(path string) (*ModelInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read ONNX model: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read ONNX model: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder, not an ONNX model file: choose the .onnx file inside it", path)
	}
	mi, err := Parse(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s is %w", path, err)
	}
	return mi, nil
}

// Parse reads a model's interface from the size bytes of r. Its errors wrap ErrNotONNX and
// read as the end of a sentence: "not an ONNX model (…)".
func Parse(r io.ReaderAt, size int64) (*ModelInfo, error) {
	mi := &ModelInfo{Ops: map[string]int{}, Metadata: map[string]string{}}
	p := &parser{mi: mi, inits: map[string]int64{}, ext: map[string]bool{}, gathered: map[string]bool{}}
	root := msg{s: &source{r: r, size: size}, off: 0, end: size}
	err := root.each(p.model)
	if err == nil && (p.graphs == 0 || mi.IRVersion <= 0) {
		err = errors.New("no graph or IR version found")
	}
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNotONNX, err)
	}
	mi.Inputs = slices.DeleteFunc(mi.Inputs, func(io IO) bool { _, ok := p.inits[io.Name]; return ok })
	for name, n := range p.inits {
		switch {
		case n < 0 || mi.WeightBytes < 0:
			mi.WeightBytes = -1
		default:
			mi.WeightBytes += n
		}
		if p.gathered[name] && n > 0 {
			mi.TableBytes += n
		}
	}
	mi.ExternalFiles = slices.Sorted(maps.Keys(p.ext))
	return mi, nil
}

type parser struct {
	mi     *ModelInfo
	graphs int
	inits  map[string]int64 // a weight's bytes, -1 when not known
	ext    map[string]bool
	// gathered are the names Gather nodes read rows of.
	gathered map[string]bool
}

func wrongType(f field, want protowire.Type) error {
	if f.typ == want {
		return nil
	}
	return &parseError{off: f.sub.off, err: fmt.Errorf("field %d has wire type %d, want %d", f.num, f.typ, want)}
}

func (p *parser) model(f field) error {
	var err error
	switch f.num {
	case FieldModelIRVersion:
		if err = wrongType(f, protowire.VarintType); err == nil {
			p.mi.IRVersion = int64(f.v)
		}
	case FieldModelProducer:
		p.mi.Producer, err = f.str()
	case FieldModelProducerVersion:
		p.mi.ProducerVersion, err = f.str()
	case FieldModelOpset:
		if err = wrongType(f, protowire.BytesType); err == nil {
			var o Opset
			err = f.sub.each(func(g field) (err error) {
				switch g.num {
				case FieldOpsetDomain:
					o.Domain, err = g.str()
				case FieldOpsetVersion:
					o.Version = int64(g.v)
				}
				return err
			})
			p.mi.Opsets = append(p.mi.Opsets, o)
		}
	case FieldModelMetadata:
		if err = wrongType(f, protowire.BytesType); err == nil {
			var k, v string
			k, v, err = entry(f.sub)
			p.mi.Metadata[k] = v
		}
	case FieldModelGraph:
		if err = wrongType(f, protowire.BytesType); err == nil {
			p.graphs++
			err = f.sub.each(p.graph)
		}
	}
	return err
}

func entry(m msg) (k, v string, err error) {
	err = m.each(func(f field) (err error) {
		switch f.num {
		case FieldEntryKey:
			k, err = f.str()
		case FieldEntryValue:
			v, err = f.str()
		}
		return err
	})
	return k, v, err
}

func (p *parser) graph(f field) error {
	if f.num != FieldGraphNode && f.num != FieldGraphInitializer && f.num != FieldGraphInput && f.num != FieldGraphOutput {
		return nil
	}
	if err := wrongType(f, protowire.BytesType); err != nil {
		return err
	}
	switch f.num {
	case FieldGraphNode:
		return p.node(f.sub)
	case FieldGraphInitializer:
		return p.initializer(f.sub)
	case FieldGraphInput, FieldGraphOutput:
		io, err := valueInfo(f.sub)
		if f.num == FieldGraphInput {
			p.mi.Inputs = append(p.mi.Inputs, io)
		} else {
			p.mi.Outputs = append(p.mi.Outputs, io)
		}
		return err
	}
	return nil
}

// initializer records a weight's name and size; its data is skipped, never read.
func (p *parser) initializer(m msg) error {
	var name string
	var location string
	var size, extLength int64 = 0, -1
	err := m.each(func(f field) (err error) {
		switch f.num {
		case FieldTensorName:
			name, err = f.str()
		case FieldTensorRaw:
			p.mi.InitializerBytes += f.sub.end - f.sub.off
			size = f.sub.end - f.sub.off
		case FieldTensorExternal:
			if err = wrongType(f, protowire.BytesType); err == nil {
				var k, v string
				k, v, err = entry(f.sub)
				switch k {
				case "location":
					location = v
				case "length":
					if n, perr := strconv.ParseInt(v, 10, 64); perr == nil && n >= 0 {
						extLength = n
					}
				}
			}
		}
		return err
	})
	p.mi.Initializers++
	if location != "" {
		size = extLength
	}
	p.inits[name] = size
	if location != "" {
		p.ext[location] = true
	}
	return err
}

func (p *parser) node(m msg) error {
	var name, op, domain string
	var ep EPContext
	var nb NBits
	inputs := 0
	var first string
	err := m.each(func(f field) (err error) {
		switch f.num {
		case FieldNodeInput:
			var in string
			in, err = f.str()
			if inputs == 0 {
				first = in
			}
			nb.ZeroPoints = nb.ZeroPoints || inputs == 3 && in != "" // MatMulNBits' zero_points
			inputs++
		case FieldNodeName:
			name, err = f.str()
		case FieldNodeOpType:
			op, err = f.str()
		case FieldNodeDomain:
			domain, err = f.str()
		case FieldNodeAttr:
			if err = wrongType(f, protowire.BytesType); err == nil {
				err = epAttr(f.sub, &ep, &nb)
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	p.mi.Ops[OpKey(domain, op)]++
	if op == "Gather" && domain == "" || op == "GatherBlockQuantized" {
		p.gathered[first] = true
	}
	if op == "MatMulNBits" {
		if p.mi.NBits == nil {
			p.mi.NBits = map[NBits]int{}
		}
		p.mi.NBits[nb]++
	}
	if op == "EPContext" {
		ep.Node = name
		if ep.EmbedMode == 0 {
			ep.EmbeddedBytes = 0
		}
		p.mi.EPContexts = append(p.mi.EPContexts, ep)
	}
	return nil
}

// epAttr reads an attribute into ep if it is one of EPContext's, or into nb if it is one of
// MatMulNBits'; others are skipped. A long string value (an embedded context binary) is
// measured, not read.
func epAttr(m msg, ep *EPContext, nb *NBits) error {
	var name string
	var i int64
	var s field
	err := m.each(func(f field) (err error) {
		switch f.num {
		case FieldAttrName:
			name, err = f.str()
		case FieldAttrI:
			i = int64(f.v)
		case FieldAttrS:
			if err = wrongType(f, protowire.BytesType); err == nil {
				s = f
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	str := func() (string, error) {
		if s.sub.s == nil || s.sub.end-s.sub.off > 4096 {
			return "", nil
		}
		return s.str()
	}
	switch name {
	case "ep_cache_context":
		ep.EmbeddedBytes = s.sub.end - s.sub.off
		ep.CacheContext, err = str()
	case "source":
		ep.Source, err = str()
	case "embed_mode":
		ep.EmbedMode = i
	case "main_context":
		ep.MainContext = i
	case "bits":
		nb.Bits = i
	case "block_size":
		nb.BlockSize = i
	case "accuracy_level":
		nb.AccuracyLevel = i
	}
	return err
}

func valueInfo(m msg) (IO, error) {
	var io IO
	err := m.each(func(f field) (err error) {
		switch f.num {
		case FieldValueName:
			io.Name, err = f.str()
		case FieldValueType:
			if err = wrongType(f, protowire.BytesType); err == nil {
				err = f.sub.each(func(g field) error {
					if g.num != FieldTypeTensor {
						return nil
					}
					if err := wrongType(g, protowire.BytesType); err != nil {
						return err
					}
					return tensorType(g.sub, &io)
				})
			}
		}
		return err
	})
	return io, err
}

func tensorType(m msg, io *IO) error {
	return m.each(func(f field) error {
		switch f.num {
		case FieldTensorElemType:
			io.ElemType = DataType(f.v).String()
		case FieldTensorShape:
			if err := wrongType(f, protowire.BytesType); err != nil {
				return err
			}
			io.Dims = []Dim{}
			return f.sub.each(func(g field) error {
				if g.num != FieldShapeDim {
					return nil
				}
				if err := wrongType(g, protowire.BytesType); err != nil {
					return err
				}
				var d Dim
				err := g.sub.each(func(h field) (err error) {
					switch h.num {
					case FieldDimValue:
						d.Value = int64(h.v)
					case FieldDimParam:
						d.Param, err = h.str()
					}
					return err
				})
				io.Dims = append(io.Dims, d)
				return err
			})
		}
		return nil
	})
}
