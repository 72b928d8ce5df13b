package optimize

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// mergedCond is the input of Optimum's merged decoders that chooses the branch.
const mergedCond = "use_cache_branch"

// unmerge turns Optimum's merged decoder (decoder_model_merged.onnx: one If on
// use_cache_branch whose outputs are the graph's, the pass with past in then_branch, the one
// without in else_branch) into its pass with past, in line: with an empty past it computes
// what the other branch does, and the decoders pass the past they have. The rewrites after it
// then see the graph's attention and LM head. The use_cache_branch input stays, unread; the
// branch's own initializers (Optimum's merge leaves there what the branches do not share)
// are returned as fields for the main graph. It says whether it did; it returns the nodes
// unchanged (and why, "" when the graph is not merged) when the If is not exactly that.
func unmerge(nodes []node, info *proto.ModelInfo) (_ []node, inits []field, done bool, skipped string, err error) {
	if _, ok := info.Input(mergedCond); !ok {
		return nodes, nil, false, "", nil
	}
	outputs := map[string]bool{}
	for _, o := range info.Outputs {
		outputs[o.Name] = true
	}
	at := -1
	for i, n := range nodes {
		if n.op == "If" && n.domain == "" {
			if at >= 0 {
				return nodes, nil, false, "the graph has more than one If node", nil
			}
			at = i
		}
	}
	if at < 0 {
		return nodes, nil, false, "", nil
	}
	ifNode := nodes[at]
	for _, o := range ifNode.outputs {
		if !outputs[o] {
			return nodes, nil, false, fmt.Sprintf("the If node's output %s is not a graph output", o), nil
		}
	}
	if !fromCond(nodes, ifNode.inputs[0]) {
		return nodes, nil, false, fmt.Sprintf("the If node's condition %s does not come from %s", ifNode.inputs[0], mergedCond), nil
	}
	branch, err := graphAttr(ifNode.raw, "then_branch")
	if err != nil || branch == nil {
		return nodes, nil, false, "", fmt.Errorf("read the If node's then_branch: %v", err)
	}
	gfs, err := fields(branch)
	if err != nil {
		return nodes, nil, false, "", err
	}
	var body []node
	var outs []string
	for _, f := range gfs {
		if f.typ != protowire.BytesType {
			continue
		}
		switch f.num {
		case proto.FieldGraphNode:
			n, err := parseNode(f.val)
			if err != nil {
				return nodes, nil, false, "", err
			}
			body = append(body, n)
		case proto.FieldGraphOutput:
			vfs, err := fields(f.val)
			if err != nil {
				return nodes, nil, false, "", err
			}
			outs = append(outs, attrNameOf(vfs)) // ValueInfoProto's name is field 1, as an attribute's
		case proto.FieldGraphInitializer:
			inits = append(inits, f)
		case proto.FieldGraphInput:
			return nodes, nil, false, "the with-past branch has inputs of its own", nil
		}
	}
	if len(outs) != len(ifNode.outputs) {
		return nodes, nil, false, fmt.Sprintf("the with-past branch has %d outputs for the If node's %d", len(outs), len(ifNode.outputs)), nil
	}
	rename := map[string]string{}
	for k, o := range outs {
		rename[o] = ifNode.outputs[k]
	}
	for i := range body {
		if subgraphs(body[i].raw) {
			return nodes, nil, false, fmt.Sprintf("the with-past branch's %s node has subgraphs of its own", body[i].op), nil
		}
		raw, err := renameValues(body[i].raw, rename)
		if err != nil {
			return nodes, nil, false, "", err
		}
		if body[i], err = parseNode(raw); err != nil {
			return nodes, nil, false, "", err
		}
	}
	out := make([]node, 0, len(nodes)+len(body))
	out = append(out, nodes[:at]...)
	out = append(out, body...)
	out = append(out, nodes[at+1:]...)
	return deadFree(out, outputs), inits, true, "", nil
}

// fromCond says whether t is use_cache_branch or made from it alone by a chain of one-input
// nodes (Optimum squeezes or casts it).
func fromCond(nodes []node, t string) bool {
	for range len(nodes) + 1 {
		if t == mergedCond {
			return true
		}
		found := false
		for _, n := range nodes {
			if len(n.outputs) == 1 && n.outputs[0] == t && len(n.inputs) >= 1 {
				t, found = n.inputs[0], true
				break
			}
		}
		if !found {
			return false
		}
	}
	return false
}

// graphAttr returns the GraphProto bytes of a node's graph attribute name (nil if none).
func graphAttr(raw []byte, name string) ([]byte, error) {
	attrs, err := nodeAttrs(raw)
	if err != nil {
		return nil, err
	}
	for _, afs := range attrs {
		if attrNameOf(afs) != name {
			continue
		}
		for _, f := range afs {
			if f.num == proto.FieldAttrG && f.typ == protowire.BytesType {
				return f.val, nil
			}
		}
	}
	return nil, nil
}

// subgraphs says whether a node has a graph attribute.
func subgraphs(raw []byte) bool {
	attrs, err := nodeAttrs(raw)
	if err != nil {
		return true
	}
	for _, afs := range attrs {
		for _, f := range afs {
			if f.num == proto.FieldAttrG {
				return true
			}
		}
	}
	return false
}

// renameValues returns node bytes whose inputs and outputs named in rename are renamed.
func renameValues(raw []byte, rename map[string]string) ([]byte, error) {
	fs, err := fields(raw)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, f := range fs {
		if (f.num == proto.FieldNodeInput || f.num == proto.FieldNodeOutput) && f.typ == protowire.BytesType {
			if to, ok := rename[string(f.val)]; ok {
				out = appendBytes(out, f.num, []byte(to))
				continue
			}
		}
		out = append(out, f.raw...)
	}
	return out, nil
}
