package demo

import (
	"encoding/json"

	"edgechat/reply"
)

// demoToolMessage is what the demo engine asks the echo tool to say.
const demoToolMessage = "Hello from EdgeChat"

// toolStep is the demo engine's use of an MCP echo tool (screenshots of a tool call): offered
// echo and no result yet, it calls it; given the result, it answers with it.
func toolStep(req reply.Request) (call *reply.ToolCall, answer string, ok bool) {
	offered := false
	for _, t := range req.Tools {
		offered = offered || t.Name == "echo"
	}
	if !offered || len(req.Messages) == 0 {
		return nil, "", false
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role == "tool" {
		return nil, "The **echo** tool of the *everything* server answered:\n\n> " + last.Content + "\n\nThat is the text I asked it to repeat.", true
	}
	args, _ := json.Marshal(map[string]string{"message": demoToolMessage})
	return &reply.ToolCall{ID: "call_demo_1", Name: "echo", Arguments: args}, "", true
}
