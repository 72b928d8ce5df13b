package mcp

import (
	"fmt"

	"edgechat/inference/sample/grammar"
	"edgechat/reply"
)

// ReplyTools turns the offered tools into a request's tools, each with its ModelSchema. A tool
// whose schema constrained decoding cannot take even so is left out, with an error naming it:
// the other tools are still offered.
func ReplyTools(offered []OfferedTool) ([]reply.Tool, []error) {
	var tools []reply.Tool
	var errs []error
	for _, t := range offered {
		schema := ModelSchema(t.InputSchema)
		if _, err := grammar.Compile(schema); err != nil {
			errs = append(errs, fmt.Errorf("the tool %s of MCP server %s is not offered to the model: its input schema: %v", t.Name, t.Server, err))
			continue
		}
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		tools = append(tools, reply.Tool{Name: t.Offered, Description: desc, Parameters: schema})
	}
	return tools, errs
}
