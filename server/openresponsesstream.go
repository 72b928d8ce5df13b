package server

import (
	"context"
	"net/http"
	"strings"

	"edgechat/reply"
)

// streamResponse writes a reply as the Responses API streams it: response.created and
// response.in_progress; for each output item (reasoning, message, function call) its
// output_item.added, deltas, .done events and output_item.done; then response.completed (or
// response.incomplete, or response.failed). Every event carries a sequence_number.
func (s *Server) streamResponse(ctx context.Context, w http.ResponseWriter, events <-chan reply.Event, c completion, rr *responsesRequest) *reply.Summary {
	rs := &respStream{sw: startSSE(w), id: c.id, index: -1}
	resp := rr.object(c, "in_progress")
	rs.send("response.created", map[string]any{"response": resp})
	rs.send("response.in_progress", map[string]any{"response": resp})
	rs.sw.flush()

	sum, gone, failure := s.relay(ctx, rs.sw, events, func(ev reply.Event) {
		switch ev.Kind {
		case reply.EventThinking:
			rs.addText("reasoning", ev.Text)
		case reply.EventText:
			rs.addText("message", ev.Text)
		case reply.EventToolCall:
			if ev.Tool != nil {
				rs.call(*ev.Tool)
			}
		}
	})
	if gone {
		return sum
	}
	rs.closeItem()
	if failure != nil {
		resp.Status, resp.Error, resp.Output = "failed", &respError{Code: "server_error", Message: failure.Message}, rs.items
		rs.send("response.failed", map[string]any{"response": resp})
		rs.sw.flush()
		return sum
	}
	resp.finish(sum)
	resp.Output = rs.items
	name := "response.completed"
	if resp.Status == "incomplete" {
		name = "response.incomplete"
	}
	rs.send(name, map[string]any{"response": resp})
	rs.sw.flush()
	return sum
}

// respStream writes the output items of a streamed response, one open at a time.
type respStream struct {
	sw    *sseWriter
	id    string
	seq   int
	index int    // the open item's output_index
	kind  string // the open item's kind ("reasoning", "message", "function_call"), "" when none
	text  strings.Builder
	fn    functionCallItem
	items []any // the finished items, for the final response
}

// send writes one event with its type and sequence number.
func (rs *respStream) send(name string, fields map[string]any) {
	fields["type"], fields["sequence_number"] = name, rs.seq
	rs.seq++
	rs.sw.event(name, fields)
}

// open closes the open item and starts one of kind.
func (rs *respStream) open(kind string, item any) {
	rs.closeItem()
	rs.index++
	rs.kind = kind
	rs.text.Reset()
	rs.send("response.output_item.added", map[string]any{"output_index": rs.index, "item": item})
}

func (rs *respStream) itemID() string {
	prefix := map[string]string{"reasoning": "rs", "message": "msg", "function_call": "fc"}[rs.kind]
	return itemID(prefix, rs.id, rs.index)
}

// addText adds text to the open item of kind (reasoning or message), opening one if needed.
func (rs *respStream) addText(kind, t string) {
	if rs.kind != kind {
		next := rs.index + 1
		if kind == "reasoning" {
			rs.open(kind, reasoningItem{Type: "reasoning", ID: itemID("rs", rs.id, next), Summary: []textPart{}, Content: []textPart{}})
		} else {
			rs.open(kind, messageItem{Type: "message", ID: itemID("msg", rs.id, next), Status: "in_progress", Role: "assistant", Content: []textPart{}})
			rs.send("response.content_part.added", map[string]any{"item_id": rs.itemID(), "output_index": rs.index, "content_index": 0,
				"part": outputTextPart("")})
		}
	}
	rs.text.WriteString(t)
	name := "response.output_text.delta"
	if kind == "reasoning" {
		name = "response.reasoning_text.delta"
	}
	rs.send(name, map[string]any{"item_id": rs.itemID(), "output_index": rs.index, "content_index": 0, "delta": t, "logprobs": []any{}})
}

// call adds a piece of a tool call: a new call opens a function_call item.
func (rs *respStream) call(p reply.ToolCallPart) {
	if p.ID != "" {
		item := functionCallItem{Type: "function_call", ID: itemID("fc", rs.id, rs.index+1), CallID: p.ID, Name: p.Name, Status: "in_progress"}
		rs.open("function_call", item)
		rs.fn = item
	}
	if p.Arguments != "" && rs.kind == "function_call" {
		rs.fn.Arguments += p.Arguments
		rs.send("response.function_call_arguments.delta", map[string]any{"item_id": rs.itemID(), "output_index": rs.index, "delta": p.Arguments})
	}
}

// closeItem finishes the open item with its .done events.
func (rs *respStream) closeItem() {
	id, i, text := rs.itemID(), rs.index, rs.text.String()
	var item any
	switch rs.kind {
	case "":
		return
	case "reasoning":
		rs.send("response.reasoning_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": text})
		item = reasoningItem{Type: "reasoning", ID: id, Summary: []textPart{}, Content: []textPart{{Type: "reasoning_text", Text: text}}}
	case "message":
		part := outputTextPart(text)
		rs.send("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": text, "logprobs": []any{}})
		rs.send("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part})
		item = messageItem{Type: "message", ID: id, Status: "completed", Role: "assistant", Content: []textPart{part}}
	case "function_call":
		rs.fn.Status = "completed"
		rs.send("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "name": rs.fn.Name, "arguments": rs.fn.Arguments})
		item = rs.fn
	}
	rs.send("response.output_item.done", map[string]any{"output_index": i, "item": item})
	rs.items = append(rs.items, item)
	rs.kind = ""
}
