package optimize

import (
	"strconv"

	"edgechat/onnx/proto"
)

// uniqueNames renames nodes so that no two share a name, whatever the graph came with: ONNX
// allows unnamed nodes (older exporters and hand-made graphs have them) and ONNX Runtime
// accepts them, but the names the rewrites derive from them ("/edgechat_rmsnorm" for every
// unnamed norm) would collide, and ONNX Runtime refuses two nodes of one name. Unnamed nodes
// stay unnamed; the first node of a name keeps it, later ones get a suffix no node has.
func uniqueNames(nodes []node) ([]node, error) {
	taken := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		taken[n.name] = true
	}
	seen := make(map[string]bool, len(nodes))
	for i, n := range nodes {
		if n.name == "" {
			continue
		}
		if !seen[n.name] {
			seen[n.name] = true
			continue
		}
		name := n.name
		for k := 2; taken[name]; k++ {
			name = n.name + "_" + strconv.Itoa(k)
		}
		raw, err := withName(n.raw, name)
		if err != nil {
			return nil, err
		}
		nodes[i].raw, nodes[i].name = raw, name
		taken[name], seen[name] = true, true
	}
	return nodes, nil
}

// withName returns node bytes named name.
func withName(raw []byte, name string) ([]byte, error) {
	fs, err := fields(raw)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, f := range fs {
		if f.num == proto.FieldNodeName {
			continue
		}
		out = append(out, f.raw...)
	}
	return appendBytes(out, proto.FieldNodeName, []byte(name)), nil
}
