package optimize

import (
	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// GraphNode is what the tests read of a node of a written model: its op type, domain, inputs
// and qk_norm_epsilon (-1 when absent).
type GraphNode struct {
	Op, Domain string
	Inputs     []string
	QKNormEps  float32
}

// GraphNodes lists the nodes of model b's graph, in order.
func GraphNodes(b []byte) ([]GraphNode, error) {
	mfs, err := fields(b)
	if err != nil {
		return nil, err
	}
	var out []GraphNode
	for _, f := range mfs {
		if f.num != proto.FieldModelGraph || f.typ != protowire.BytesType {
			continue
		}
		gfs, err := fields(f.val)
		if err != nil {
			return nil, err
		}
		for _, g := range gfs {
			if g.num != proto.FieldGraphNode || g.typ != protowire.BytesType {
				continue
			}
			n, err := parseNode(g.val)
			if err != nil {
				return nil, err
			}
			eps, ok := floatAttr(n.raw, qkNormEpsAttr)
			if !ok {
				eps = -1
			}
			out = append(out, GraphNode{Op: n.op, Domain: n.domain, Inputs: n.inputs, QKNormEps: eps})
		}
	}
	return out, nil
}
