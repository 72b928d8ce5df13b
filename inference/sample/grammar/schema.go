// Package grammar constrains a model's output to JSON, or to a JSON schema, token by token:
// a schema compiles to a grammar (a tree of nodes), a Matcher follows the output byte by byte
// as a pushdown automaton, and for each state it makes the mask of the vocabulary's tokens
// that may come next, walking a trie of the tokens' bytes and caching the mask per state, so
// that a step costs little once its states have been seen.
package grammar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// kind is what a node matches.
type kind uint8

const (
	kAny     kind = iota // any JSON value
	kObject              // an object
	kArray               // an array
	kString              // a string
	kNumber              // a number
	kInteger             // an integer (no fraction, no exponent)
	kLiteral             // one of a set of JSON texts (enum, const, true/false, null, small integer ranges)
	kAnyOf               // any of alts
)

// node is one schema in compiled form.
type node struct {
	id   int32
	kind kind
	// object
	props    []prop
	required uint64 // bit i: props[i] is required
	// finiteProps has bit i set when props[i] has a finite value (see prune).
	finiteProps uint64
	additional  *node // schema of other keys; nil: none allowed
	ordered     bool  // props come in order, each once, all required (tool-call wrappers)
	keys        *litTrie
	// array
	prefix             []*node
	items              *node // nil: no items past prefix
	minItems, maxItems int   // maxItems -1: no limit
	// string
	minLen, maxLen int // maxLen -1: no limit
	// number
	unsigned bool
	// literal
	lits *litTrie
	// anyOf
	alts []*node
	// min is the shortest text of a value of this node (see minimal).
	min      []byte
	minState uint8 // 0 unknown, 1 computing, 2 known
}

type prop struct {
	name string
	node *node
}

// maxProps is the most properties one object schema may name: seen properties are a bitset.
const maxProps = 64

// Grammar is a compiled schema. It is read-only once compiled and safe for concurrent use;
// Matchers of it keep their own state.
type Grammar struct {
	root  *node
	nodes []*node
	// The nodes a value of kAny becomes, by its first byte.
	anyObject, anyArray, anyString, anyNumber, anyLiteral *node
}

// annotations are keywords that do not constrain a value; they are ignored. "format" is an
// annotation too unless a validator opts in to asserting it.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "$comment": true,
	"$schema": true, "$id": true, "$anchor": true, "deprecated": true, "readOnly": true,
	"writeOnly": true, "format": true, "contentMediaType": true, "contentEncoding": true,
	"discriminator": true, "example": true, "strict": true,
}

// compiler turns a schema document into nodes.
type compiler struct {
	g    *Grammar
	doc  map[string]any
	refs map[string]*node
}

// ErrSchema marks a schema that cannot be compiled: malformed, unsatisfiable, or using a
// keyword constrained decoding cannot enforce (named in the message).
var ErrSchema = errors.New("JSON schema")

func schemaErr(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrSchema, path, fmt.Sprintf(format, args...))
}

// Compile compiles a JSON schema. The value it makes valid is the whole output.
func Compile(schema json.RawMessage) (*Grammar, error) {
	v, err := decodeSchema(schema)
	if err != nil {
		return nil, err
	}
	c := &compiler{g: &Grammar{}, refs: map[string]*node{}}
	if m, ok := v.(map[string]any); ok {
		c.doc = m
	}
	root, err := c.compile(v, "#")
	if err != nil {
		return nil, err
	}
	return c.finish(root)
}

// JSONObject is the grammar of any JSON object (OpenAI's json_object format).
func JSONObject() *Grammar {
	c := &compiler{g: &Grammar{}}
	g, err := c.finish(c.objectOf(c.any()))
	if err != nil {
		panic("grammar: " + err.Error())
	}
	return g
}

// Call is one function a tool call may name, with the schema of its arguments.
type Call struct {
	Name       string
	Parameters json.RawMessage // nil: any object
}

// CallShape says how a model writes a tool call as JSON.
type CallShape struct {
	// ArgsKey is the arguments' key: "arguments" (most models) or "parameters" (Llama 3).
	ArgsKey string
	// List makes the output a JSON array of calls (Mistral, Phi-4) instead of one call.
	List bool
	// Max caps the calls of a list (0: no limit).
	Max int
}

// ToolCalls is the grammar of a tool call (or a list of them) naming one of calls:
// {"name": NAME, ARGS_KEY: ARGUMENTS}, the name first, as the models are trained to write it.
func ToolCalls(calls []Call, shape CallShape) (*Grammar, error) {
	if len(calls) == 0 {
		return nil, schemaErr("tools", "no function to call")
	}
	c := &compiler{g: &Grammar{}, refs: map[string]*node{}}
	var alts []*node
	for _, call := range calls {
		var args *node
		if len(call.Parameters) == 0 || string(bytes.TrimSpace(call.Parameters)) == "null" {
			args = c.objectOf(c.any())
		} else {
			v, err := decodeSchema(call.Parameters)
			if err != nil {
				return nil, fmt.Errorf("function %q: %w", call.Name, err)
			}
			c.doc, c.refs = nil, map[string]*node{}
			if m, ok := v.(map[string]any); ok {
				c.doc = m
			}
			if args, err = c.compile(v, "#"); err != nil {
				return nil, fmt.Errorf("function %q: %w", call.Name, err)
			}
		}
		name, err := c.literal([]any{call.Name}, "name")
		if err != nil {
			return nil, err
		}
		obj := c.newNode(kObject)
		obj.ordered = true
		obj.props = []prop{{"name", name}, {shape.ArgsKey, args}}
		obj.required = 3
		alts = append(alts, obj)
	}
	call := alts[0]
	if len(alts) > 1 {
		call = c.newNode(kAnyOf)
		call.alts = alts
	}
	root := call
	if shape.List {
		root = c.newNode(kArray)
		root.items, root.minItems, root.maxItems = call, 1, -1
		if shape.Max > 0 {
			root.maxItems = shape.Max
		}
	}
	return c.finish(root)
}

func decodeSchema(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: not valid JSON: %v", ErrSchema, err)
	}
	switch v.(type) {
	case map[string]any, bool:
		return v, nil
	}
	return nil, fmt.Errorf("%w: a schema is an object or a boolean", ErrSchema)
}

func (c *compiler) newNode(k kind) *node {
	n := &node{id: int32(len(c.g.nodes)), kind: k, maxItems: -1, maxLen: -1}
	c.g.nodes = append(c.g.nodes, n)
	return n
}

func (c *compiler) any() *node { return c.newNode(kAny) }

func (c *compiler) objectOf(additional *node) *node {
	n := c.newNode(kObject)
	n.additional = additional
	return n
}

// finish resolves references, builds key tries and checks every node has a finite value.
func (c *compiler) finish(root *node) (*Grammar, error) {
	g := c.g
	g.anyObject = c.objectOf(c.any())
	g.anyArray = c.newNode(kArray)
	g.anyArray.items = c.any()
	g.anyString = c.newNode(kString)
	g.anyNumber = c.newNode(kNumber)
	lit, _ := c.literal([]any{true, false, nil}, "#")
	g.anyLiteral = lit
	for _, n := range c.g.nodes {
		if n.kind == kObject {
			names := make([]string, len(n.props))
			for i, p := range n.props {
				names[i] = p.name
			}
			n.keys = newKeyTrie(names)
		}
	}
	if _, err := minimal(root); err != nil {
		return nil, err
	}
	prune(c.g.nodes)
	c.g.root = root
	return c.g, nil
}

// prune removes the choices that lead to no finite value (a property or item of a type that
// requires itself), so that the grammar never allows a start it cannot finish.
func prune(nodes []*node) {
	finite := func(n *node) bool { _, ok := minimalOf(n); return ok }
	for _, n := range nodes {
		switch n.kind {
		case kAnyOf:
			alts := n.alts[:0:0]
			for _, a := range n.alts {
				if finite(a) {
					alts = append(alts, a)
				}
			}
			n.alts = alts
		case kObject:
			if n.additional != nil && !finite(n.additional) {
				n.additional = nil
			}
			for i, p := range n.props {
				if finite(p.node) {
					n.finiteProps |= 1 << i
				}
			}
		case kArray:
			if n.items != nil && !finite(n.items) {
				n.items = nil
			}
			for i, p := range n.prefix {
				if !finite(p) {
					n.prefix, n.items = n.prefix[:i], nil
					break
				}
			}
			if n.items == nil && (n.maxItems < 0 || n.maxItems > len(n.prefix)) {
				n.maxItems = len(n.prefix)
			}
		}
	}
}

// compile compiles schema v found at path.
func (c *compiler) compile(v any, path string) (*node, error) {
	switch s := v.(type) {
	case bool:
		if !s {
			return nil, schemaErr(path, "the schema false admits no value")
		}
		return c.any(), nil
	case map[string]any:
		return c.compileObject(s, path)
	}
	return nil, schemaErr(path, "a schema is an object or a boolean, not %T", v)
}

// unsupported names keywords constrained decoding cannot enforce.
var unsupported = map[string]string{
	"pattern":               "a regular expression on strings",
	"patternProperties":     "keys matched by regular expressions",
	"multipleOf":            "divisibility",
	"minProperties":         "a least number of keys",
	"maxProperties":         "a most number of keys",
	"uniqueItems":           "distinct items",
	"contains":              "an item that must appear",
	"minContains":           "counted items",
	"maxContains":           "counted items",
	"not":                   "negation",
	"if":                    "conditions",
	"then":                  "conditions",
	"else":                  "conditions",
	"dependentRequired":     "keys that require others",
	"dependentSchemas":      "keys that require schemas",
	"dependencies":          "keys that require others",
	"propertyNames":         "a schema for keys",
	"unevaluatedItems":      "unevaluated items",
	"unevaluatedProperties": "unevaluated keys",
	"$dynamicRef":           "dynamic references",
	"$recursiveRef":         "recursive references",
}

func (c *compiler) compileObject(s map[string]any, path string) (*node, error) {
	for _, k := range sortedKeys(s) {
		if what, ok := unsupported[k]; ok {
			return nil, schemaErr(path, "%q (%s) cannot be enforced while generating; remove it from the schema", k, what)
		}
	}
	if r, ok := s["$ref"]; ok {
		ref, _ := r.(string)
		return c.resolve(ref, path)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[key]; ok {
			return c.compileAlts(s, alts, path+"/"+key)
		}
	}
	if all, ok := s["allOf"]; ok {
		list, _ := all.([]any)
		if len(list) != 1 || hasConstraints(s, "allOf") {
			return nil, schemaErr(path, `"allOf" with more than one schema cannot be enforced; merge them into one`)
		}
		return c.compile(list[0], path+"/allOf/0")
	}
	if e, ok := s["enum"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			return nil, schemaErr(path, `"enum" must be a non-empty array`)
		}
		return c.literal(list, path)
	}
	if v, ok := s["const"]; ok {
		return c.literal([]any{v}, path)
	}
	types, err := schemaTypes(s, path)
	if err != nil {
		return nil, err
	}
	if nullable, _ := s["nullable"].(bool); nullable && len(types) > 0 && !slices.Contains(types, "null") {
		types = append(types, "null")
	}
	if len(types) == 0 {
		types = inferTypes(s)
	}
	if len(types) == 0 {
		return c.any(), nil
	}
	var alts []*node
	for _, t := range types {
		n, err := c.typed(s, t, path)
		if err != nil {
			return nil, err
		}
		alts = append(alts, n)
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	n := c.newNode(kAnyOf)
	n.alts = alts
	return n, nil
}

// hasConstraints reports whether s has keywords besides annotations, definitions and except.
func hasConstraints(s map[string]any, except string) bool {
	for k := range s {
		if k != except && !annotations[k] && k != "$defs" && k != "definitions" {
			return true
		}
	}
	return false
}

func (c *compiler) compileAlts(s map[string]any, alts any, path string) (*node, error) {
	list, ok := alts.([]any)
	if !ok || len(list) == 0 {
		return nil, schemaErr(path, "must be a non-empty array of schemas")
	}
	key := path[strings.LastIndexByte(path, '/')+1:]
	if hasConstraints(s, key) {
		return nil, schemaErr(path, "%q beside other keywords cannot be enforced; move them into each alternative", key)
	}
	n := c.newNode(kAnyOf)
	for i, a := range list {
		alt, err := c.compile(a, fmt.Sprintf("%s/%d", path, i))
		if err != nil {
			return nil, err
		}
		n.alts = append(n.alts, alt)
	}
	if len(n.alts) == 1 {
		return n.alts[0], nil
	}
	return n, nil
}

// resolve compiles a local reference ("#", "#/$defs/x", "#/definitions/x"), once per target.
func (c *compiler) resolve(ref, path string) (*node, error) {
	if n, ok := c.refs[ref]; ok {
		return n, nil
	}
	if ref != "#" && !strings.HasPrefix(ref, "#/") {
		return nil, schemaErr(path, "$ref %q: only references inside the schema (#/…) can be followed", ref)
	}
	var target any = c.doc
	if ref != "#" {
		for _, part := range strings.Split(ref[2:], "/") {
			part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
			m, ok := target.(map[string]any)
			if !ok {
				return nil, schemaErr(path, "$ref %q names nothing in the schema", ref)
			}
			if target, ok = m[part]; !ok {
				return nil, schemaErr(path, "$ref %q names nothing in the schema", ref)
			}
		}
	}
	if target == nil {
		return nil, schemaErr(path, "$ref %q names nothing in the schema", ref)
	}
	// A placeholder first, so that a recursive schema refers to itself.
	n := c.newNode(kAnyOf)
	c.refs[ref] = n
	body, err := c.compile(target, ref)
	if err != nil {
		return nil, err
	}
	id := n.id
	*n = *body
	n.id = id
	return n, nil
}

// schemaTypes reads "type": a string or an array of strings.
func schemaTypes(s map[string]any, path string) ([]string, error) {
	t, ok := s["type"]
	if !ok {
		return nil, nil
	}
	var types []string
	switch v := t.(type) {
	case string:
		types = []string{v}
	case []any:
		for _, x := range v {
			str, ok := x.(string)
			if !ok {
				return nil, schemaErr(path, `"type" must name types as strings`)
			}
			types = append(types, str)
		}
	default:
		return nil, schemaErr(path, `"type" must be a string or an array of strings`)
	}
	for _, t := range types {
		switch t {
		case "object", "array", "string", "number", "integer", "boolean", "null":
		default:
			return nil, schemaErr(path, "unknown type %q", t)
		}
	}
	return types, nil
}

// inferTypes guesses the type of a schema without "type" from its keywords.
func inferTypes(s map[string]any) []string {
	for _, k := range []string{"properties", "required", "additionalProperties"} {
		if _, ok := s[k]; ok {
			return []string{"object"}
		}
	}
	for _, k := range []string{"items", "prefixItems", "minItems", "maxItems"} {
		if _, ok := s[k]; ok {
			return []string{"array"}
		}
	}
	for _, k := range []string{"minLength", "maxLength"} {
		if _, ok := s[k]; ok {
			return []string{"string"}
		}
	}
	return nil
}

func (c *compiler) typed(s map[string]any, t, path string) (*node, error) {
	switch t {
	case "object":
		return c.object(s, path)
	case "array":
		return c.array(s, path)
	case "string":
		n := c.newNode(kString)
		var err error
		if n.minLen, err = count(s, "minLength", 0, path); err != nil {
			return nil, err
		}
		if n.maxLen, err = count(s, "maxLength", -1, path); err != nil {
			return nil, err
		}
		if n.maxLen >= 0 && n.maxLen < n.minLen {
			return nil, schemaErr(path, "maxLength is below minLength")
		}
		return n, nil
	case "number", "integer":
		return c.number(s, t == "integer", path)
	case "boolean":
		return c.literal([]any{true, false}, path)
	case "null":
		return c.literal([]any{nil}, path)
	}
	return nil, schemaErr(path, "unknown type %q", t)
}

func (c *compiler) object(s map[string]any, path string) (*node, error) {
	n := c.newNode(kObject)
	props, _ := s["properties"].(map[string]any)
	// Sorted: the same schema always compiles to the same nodes.
	for _, name := range sortedKeys(props) {
		p, err := c.compile(props[name], path+"/properties/"+name)
		if err != nil {
			return nil, err
		}
		n.props = append(n.props, prop{name, p})
	}
	switch ap := s["additionalProperties"].(type) {
	case nil:
		n.additional = c.any()
	case bool:
		if ap {
			n.additional = c.any()
		}
	default:
		a, err := c.compile(ap, path+"/additionalProperties")
		if err != nil {
			return nil, err
		}
		n.additional = a
	}
	req, _ := s["required"].([]any)
	for _, r := range req {
		name, ok := r.(string)
		if !ok {
			return nil, schemaErr(path, `"required" must list property names`)
		}
		i := slices.IndexFunc(n.props, func(p prop) bool { return p.name == name })
		if i < 0 {
			if n.additional == nil {
				return nil, schemaErr(path, "%q is required but additionalProperties is false and properties does not name it", name)
			}
			n.props = append(n.props, prop{name, n.additional})
			i = len(n.props) - 1
		}
		if i >= maxProps {
			return nil, schemaErr(path, "more than %d properties in one object", maxProps)
		}
		n.required |= 1 << i
	}
	if len(n.props) > maxProps {
		return nil, schemaErr(path, "more than %d properties in one object", maxProps)
	}
	return n, nil
}

func (c *compiler) array(s map[string]any, path string) (*node, error) {
	n := c.newNode(kArray)
	var err error
	if pi, ok := s["prefixItems"].([]any); ok {
		for i, p := range pi {
			x, err := c.compile(p, fmt.Sprintf("%s/prefixItems/%d", path, i))
			if err != nil {
				return nil, err
			}
			n.prefix = append(n.prefix, x)
		}
	}
	switch it := s["items"].(type) {
	case nil:
		n.items = c.any()
	case []any: // draft 7 tuples
		for i, p := range it {
			x, err := c.compile(p, fmt.Sprintf("%s/items/%d", path, i))
			if err != nil {
				return nil, err
			}
			n.prefix = append(n.prefix, x)
		}
		n.items = c.any()
		if ai, ok := s["additionalItems"]; ok {
			if b, ok := ai.(bool); ok && !b {
				n.items = nil
			} else if !ok {
				if n.items, err = c.compile(ai, path+"/additionalItems"); err != nil {
					return nil, err
				}
			}
		}
	case bool:
		if it {
			n.items = c.any()
		}
	default:
		if n.items, err = c.compile(it, path+"/items"); err != nil {
			return nil, err
		}
	}
	if n.minItems, err = count(s, "minItems", 0, path); err != nil {
		return nil, err
	}
	if n.maxItems, err = count(s, "maxItems", -1, path); err != nil {
		return nil, err
	}
	if n.items == nil && (n.maxItems < 0 || n.maxItems > len(n.prefix)) {
		n.maxItems = len(n.prefix)
	}
	if n.maxItems >= 0 && n.maxItems < n.minItems {
		return nil, schemaErr(path, "no array can have at least %d and at most %d items", n.minItems, n.maxItems)
	}
	return n, nil
}

// maxRange is the widest integer range enforced, by listing its values.
const maxRange = 4096

func (c *compiler) number(s map[string]any, integer bool, path string) (*node, error) {
	lo, hasLo, err := bound(s, "minimum", "exclusiveMinimum", integer, path, 1)
	if err != nil {
		return nil, err
	}
	hi, hasHi, err := bound(s, "maximum", "exclusiveMaximum", integer, path, -1)
	if err != nil {
		return nil, err
	}
	if hasLo && hasHi && hi < lo {
		return nil, schemaErr(path, "no number is at least %v and at most %v", lo, hi)
	}
	if integer && hasLo && hasHi && hi-lo < maxRange {
		var vals []any
		for v := math.Ceil(lo); v <= hi; v++ {
			vals = append(vals, json.Number(strconv.FormatInt(int64(v), 10)))
		}
		return c.literal(vals, path)
	}
	k := kNumber
	if integer {
		k = kInteger
	}
	n := c.newNode(k)
	switch {
	case hasHi:
		return nil, schemaErr(path, "a maximum of %v cannot be enforced while generating (only integer ranges of fewer than %d values, and minimum 0); remove it", hi, maxRange)
	case hasLo && lo != 0 && !(integer && lo == 1 && isExclusiveZero(s)):
		return nil, schemaErr(path, "a minimum of %v cannot be enforced while generating (only minimum 0, or an integer range of fewer than %d values); remove it", lo, maxRange)
	case hasLo:
		n.unsigned = true
	}
	return n, nil
}

func isExclusiveZero(s map[string]any) bool {
	v, ok := s["exclusiveMinimum"].(json.Number)
	return ok && v.String() == "0"
}

// bound reads an inclusive bound and its exclusive form (a number; draft 4's boolean form
// refers to the inclusive keyword); dir is +1 for a lower bound, -1 for an upper one.
func bound(s map[string]any, incl, excl string, integer bool, path string, dir float64) (float64, bool, error) {
	val, has := 0.0, false
	if v, ok := s[incl]; ok {
		num, ok := v.(json.Number)
		if !ok {
			return 0, false, schemaErr(path, "%q must be a number", incl)
		}
		f, _ := num.Float64()
		val, has = f, true
	}
	switch v := s[excl].(type) {
	case json.Number:
		f, _ := v.Float64()
		if !integer {
			return 0, false, schemaErr(path, "%q on a number cannot be enforced while generating; remove it", excl)
		}
		f = math.Floor(f) + 1
		if dir < 0 {
			f = math.Ceil(f-1) - 1
		}
		if !has || (dir > 0 && f > val) || (dir < 0 && f < val) {
			val, has = f, true
		}
	case bool:
		if v && has {
			if !integer {
				return 0, false, schemaErr(path, "%q on a number cannot be enforced while generating; remove it", excl)
			}
			val += dir
		}
	}
	if integer && has {
		if dir > 0 {
			val = math.Ceil(val)
		} else {
			val = math.Floor(val)
		}
	}
	return val, has, nil
}

func count(s map[string]any, key string, def int, path string) (int, error) {
	v, ok := s[key]
	if !ok {
		return def, nil
	}
	num, ok := v.(json.Number)
	n, err := num.Int64()
	if !ok || err != nil || n < 0 || n > 1<<20 {
		return 0, schemaErr(path, "%q must be a whole number from 0 to %d", key, 1<<20)
	}
	return int(n), nil
}

// literal compiles a set of JSON values into the set of their canonical texts.
func (c *compiler) literal(vals []any, path string) (*node, error) {
	var texts []string
	for _, v := range vals {
		b, err := canonical(v)
		if err != nil {
			return nil, schemaErr(path, "enum value %v: %v", v, err)
		}
		texts = append(texts, string(b))
	}
	n := c.newNode(kLiteral)
	n.lits = newLitTrie(texts)
	return n, nil
}

// canonical is the compact JSON text of v, without HTML escaping.
func canonical(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
