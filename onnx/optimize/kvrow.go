package optimize

import (
	"bytes"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// A per-row int8 KV cache runs only on EdgeChat's attention kernels (inference/ort/attnop's
// DomainRow): each cached row (one token of one KV head) is quantized when it is written with
// a scale of its own, max|row| / 127, kept as float32 in the row's last KVRowExtra bytes. So it
// needs no calibration and never clips, and the app's buffers (rows of opaque bytes) hold it
// as they hold any cache: only the graph's declared cache width changes.

// KVRowExtra is the bytes a per-row cache row holds past its head_dim values (its scale).
const KVRowExtra = 4

// MetaKVRow is MetaKVInt8's value on a copy whose cache QuantizeKVRow made per-row int8.
const MetaKVRow = "per_row"

// QuantizeKVRow returns the kernel copy src (AttentionKernel: its MetaAttentionDomain's nodes)
// with a per-row int8 cache: every GroupQueryAttention node in the copy's float32 kernel domain
// moves to domain (the per-row operator's), and the graph's past and present tensors become
// int8 [1, kv_heads, tokens, head_dim + KVRowExtra]. Nodes of other domains stay as they are;
// a copy without kernel attention, or one whose cache is already quantized, is an error.
func QuantizeKVRow(src []byte, domain string) ([]byte, error) {
	info, err := proto.Parse(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		return nil, err
	}
	from := info.Metadata[MetaAttentionDomain]
	if from == "" {
		return nil, errf("the copy's attention does not run on EdgeChat's kernels: a per-row int8 cache needs them")
	}
	if info.Metadata[MetaKVInt8] != "" {
		return nil, errf("the copy's cache is already %s int8", info.Metadata[MetaKVInt8])
	}
	mfs, err := fields(src)
	if err != nil {
		return nil, errf("read model: %v", err)
	}
	var out []byte
	for _, f := range mfs {
		if f.num != proto.FieldModelGraph || f.typ != protowire.BytesType {
			out = append(out, f.raw...)
			continue
		}
		g, err := kvRowGraph(f.val, from, domain)
		if err != nil {
			return nil, err
		}
		out = appendBytes(out, proto.FieldModelGraph, g)
	}
	out = append(out, domainImports(info, domain)...)
	return append(out, metadataEntry(MetaKVInt8, MetaKVRow)...), nil
}

func kvRowGraph(b []byte, from, domain string) ([]byte, error) {
	gfs, err := fields(b)
	if err != nil {
		return nil, errf("read graph: %v", err)
	}
	names := map[string]bool{}
	var out []byte
	moved := 0
	for _, f := range gfs {
		if f.num == proto.FieldGraphNode && f.typ == protowire.BytesType {
			n, err := parseNode(f.val)
			if err != nil {
				return nil, errf("read node: %v", err)
			}
			if n.op == "GroupQueryAttention" && n.domain == from {
				if len(n.inputs) < 5 || len(n.outputs) < 3 {
					return nil, errf("GroupQueryAttention node %s has no cache", n.name)
				}
				if len(n.inputs) > 12 && n.inputs[12] != "" || len(n.inputs) > 13 && n.inputs[13] != "" {
					return nil, errf("GroupQueryAttention node %s already has cache scales", n.name)
				}
				for _, name := range slices.Concat(n.inputs[3:5], n.outputs[1:3]) {
					names[name] = true
				}
				moved++
				out = appendBytes(out, proto.FieldGraphNode, withDomain(n, domain).raw)
				continue
			}
		}
		out = append(out, f.raw...)
	}
	if moved == 0 {
		return nil, errf("the graph has no attention node on EdgeChat's kernels whose cache could be per-row int8")
	}
	gfs, err = fields(out)
	if err != nil {
		return nil, err
	}
	out = out[:0:0]
	widen := func(v uint64) (uint64, error) { return v + KVRowExtra, nil }
	for _, f := range gfs {
		if (f.num == proto.FieldGraphInput || f.num == proto.FieldGraphOutput) && f.typ == protowire.BytesType {
			raw, err := valueInfoAs(f.val, names, uint64(proto.Int8), widen)
			if err != nil {
				return nil, err
			}
			out = appendBytes(out, f.num, raw)
			continue
		}
		out = append(out, f.raw...)
	}
	return out, nil
}

// CachedKVRow returns the path of the per-row int8 cache copy (QuantizeKVRow, nodes to domain)
// of the kernel copy at path, writing it into cacheDir/optimized/<key>/ the first time; the
// key covers the source (path, size, time) and the domain. External data files are linked
// beside it, as Cached does.
func CachedKVRow(path, cacheDir, domain string) (string, error) {
	return cachedKVCopy(path, cacheDir, "kvrow\x00", domain, "per-row 8-bit cache", func(src []byte) ([]byte, error) {
		return QuantizeKVRow(src, domain)
	})
}
