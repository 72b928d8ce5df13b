package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"edgechat/reply"
)

// fieldPolicy is what an endpoint does with each top-level field of a request body, so that
// nothing a client asks for is silently dropped: the fields of the endpoint's request type are
// decoded and honoured or refused there; ignored fields are bookkeeping for OpenAI's own
// service that cannot change the reply; noop fields are parameters this server cannot
// honour, accepted only at the value that asks for nothing; anything else is refused with a
// 400 naming it, as OpenAI refuses a parameter it does not know.
type fieldPolicy struct {
	known map[string]bool // lower case: encoding/json matches names without regard to case
	noop  map[string]noopRule
}

// noopRule accepts the values of an unhonoured parameter that ask for nothing.
type noopRule struct {
	accepts func(raw json.RawMessage) bool
	// why follows "field: " in the refusal: what the server cannot do, and what to send.
	why string
}

// ignoredFields change nothing in a reply: who asks, where OpenAI would store or bill it, a
// cache key, a predicted output (it only speeds up a reply that would be the same), the
// model's name (this server serves one model).
var ignoredFields = []string{"model", "user", "store", "metadata", "service_tier", "prompt_cache_key",
	"safety_identifier", "prediction"}

// newFieldPolicy makes the policy of a request type: its JSON fields (embedded structs' too)
// are known, and so are ignoredFields and the fields of noop.
func newFieldPolicy(request any, noop map[string]noopRule) fieldPolicy {
	p := fieldPolicy{known: map[string]bool{}, noop: map[string]noopRule{}}
	for _, name := range append(jsonFields(reflect.TypeOf(request)), ignoredFields...) {
		p.known[strings.ToLower(name)] = true
	}
	for name, r := range noop {
		p.noop[strings.ToLower(name)] = r
	}
	return p
}

// jsonFields lists the JSON names of a struct type's fields, those of embedded structs
// included.
func jsonFields(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported() && !f.Anonymous:
		case f.Anonymous && name == "":
			names = append(names, jsonFields(f.Type)...)
		case name == "":
			names = append(names, f.Name)
		default:
			names = append(names, name)
		}
	}
	return names
}

// check refuses the first unhonoured field with a value that asks for something, then all
// unknown fields at once. body has already decoded into the request type.
func (p fieldPolicy) check(body []byte) *apiError {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return jsonError(err)
	}
	var unknown []string
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		key := strings.ToLower(name)
		if r, ok := p.noop[key]; ok {
			if !r.accepts(fields[name]) {
				return unsupported(name, r.why)
			}
			continue
		}
		if !p.known[key] {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	switch len(unknown) {
	case 0:
		return nil
	case 1:
		return badRequest("unknown_parameter", "unknown parameter "+unknown[0]+": this server does not know it, and refuses what it cannot honour rather than ignore it; leave it out")
	}
	return badRequest("unknown_parameter", "unknown parameters "+strings.Join(unknown, ", ")+": this server does not know them, and refuses what it cannot honour rather than ignore it; leave them out")
}

func unsupported(field, msg string) *apiError {
	return badRequest("unsupported_parameter", field+": "+msg)
}

// The values of unhonoured parameters that ask for nothing.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

func nullOr(values ...string) func(json.RawMessage) bool {
	return func(raw json.RawMessage) bool {
		if isNull(raw) {
			return true
		}
		var compact bytes.Buffer
		if json.Compact(&compact, raw) != nil {
			return false
		}
		return slices.Contains(values, compact.String())
	}
}

// chatNoop are the chat completion parameters this server cannot honour.
var chatNoop = map[string]noopRule{
	"logprobs":           {nullOr("false"), "this server does not return log probabilities; leave logprobs out or false"},
	"top_logprobs":       {nullOr("0"), "this server does not return log probabilities; leave top_logprobs out"},
	"modalities":         {nullOr(`["text"]`), `this model writes text only; leave modalities out or ["text"]`},
	"audio":              {isNull, "this model writes text only; leave audio out"},
	"reasoning_effort":   {isNull, "this model's reasoning is on or off, not graded; leave reasoning_effort out and turn reasoning off with \"chat_template_kwargs\":{\"enable_thinking\":false}"},
	"verbosity":          {isNull, "this server does not shape the reply's length from a hint; leave verbosity out and cap the reply with max_tokens"},
	"web_search_options": {isNull, "this server cannot search the web; leave web_search_options out"},
}

// completionNoop are the completions parameters this server cannot honour.
var completionNoop = map[string]noopRule{
	"echo":     {nullOr("false"), "this server does not return the prompt with the completion; send echo: false and prepend the prompt yourself"},
	"logprobs": {isNull, "this server does not return log probabilities; leave logprobs out"},
	"suffix":   {nullOr(`""`), "this server does not insert text before a suffix; leave suffix out"},
	"best_of":  {nullOr("1"), "only one completion per request is made (best_of=1); make several requests with different seeds and choose yourself"},
}

var (
	chatPolicy       = newFieldPolicy(chatRequest{}, chatNoop)
	completionPolicy = newFieldPolicy(completionRequest{}, completionNoop)
)

// parseLogitBias checks OpenAI's logit_bias, token ids as decimal strings mapped to biases from
// -100 to 100, and returns it by id. Whether the ids are in the model's vocabulary only the
// model knows: the engine checks that.
func parseLogitBias(m map[string]float64) (map[int]float64, *apiError) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[int]float64, len(m))
	for _, key := range slices.Sorted(maps.Keys(m)) {
		id, err := strconv.Atoi(key)
		if err != nil || id < 0 || strconv.Itoa(id) != key {
			return nil, badRequest("invalid_logit_bias", fmt.Sprintf("logit_bias: %q is not a token id; the keys are token ids written as decimal strings, e.g. {\"1234\": -100}", key))
		}
		if b := m[key]; b < -reply.MaxLogitBias || b > reply.MaxLogitBias {
			return nil, badRequest("invalid_logit_bias", fmt.Sprintf("logit_bias: the bias of token %s is %g; use a value from -100 (ban it) to 100 (force it)", key, b))
		}
		out[id] = m[key]
	}
	return out, nil
}
