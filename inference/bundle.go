package inference

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/internal/onnxproto"
	"edgechat/models"
)

// bundleDecoder runs a decoder-pipeline bundle (layout D): embeddings, then ctx (one window of
// W prompt rows) or iter (one token), then lm_head. ctx and iter use GroupQueryAttention on one
// KV buffer per layer and tensor, bound as both past and present, so they write their rows in
// place: row p holds token p. Nothing slides; the cache holds at most the buffer's rows.
// One goroutine at a time may use it.
type bundleDecoder struct {
	emb, ctx, iter, head *ort.DynamicAdvancedSession
	window, pad          int
	rows                 int // KV buffer rows (total_seq_len)
	capacity             int
	hidden, vocab        int
	kvBytes              int64
	ids                  []int
	kvBufs               [][]byte // the shared KV buffers: heads × rows × rowBytes each
	kvHeads, kvRowBytes  int

	pastSeq         []int32 // past_seq_len's data, shared by ctx and iter
	prefill, decode bundlePass
	headIn, logits  []float32
	headVals        []ort.Value // lm_head's input and output
	tensors         tensorList
}

// bundlePass is the preallocated tensors of one path through the pipeline: ids → embeddings →
// ctx or iter. The embeddings' output tensor is the transformer's input.
type bundlePass struct {
	decoder       *ort.DynamicAdvancedSession // ctx or iter
	ids64         []int64
	ids32         []int32
	out           []float32 // the transformer's output_hidden_states
	embIn, embOut []ort.Value
	in, outs      []ort.Value
}

// bundleNames are the tensor names genai_config.json gives, with Windows ML's defaults.
type bundleNames struct {
	inputIDs, logits, pastSeqLen, totalSeqLen    string
	pastKey, pastValue, presentKey, presentValue string // patterns with one %d
}

func bundleNamesOf(d models.Decoder) bundleNames {
	get := func(m map[string]string, k, def string) string {
		if v := m[k]; v != "" {
			return v
		}
		return def
	}
	return bundleNames{
		inputIDs: get(d.Inputs, "input_ids", "input_ids"), logits: get(d.Outputs, "logits", "logits"),
		pastSeqLen: get(d.Inputs, "past_sequence_length", "past_seq_len"), totalSeqLen: get(d.Inputs, "total_sequence_length", "total_seq_len"),
		pastKey: get(d.Inputs, "past_key_names", "past_keys_%d"), pastValue: get(d.Inputs, "past_value_names", "past_values_%d"),
		presentKey: get(d.Outputs, "present_key_names", "present_keys_%d"), presentValue: get(d.Outputs, "present_value_names", "present_values_%d"),
	}
}

// bundleStage is one pipeline stage's file, configuration and graph interface.
type bundleStage struct {
	models.Stage
	path string
	info *onnxproto.ModelInfo
}

// gqaIO is a ctx or iter graph's interface.
type gqaIO struct {
	hiddenIn, hiddenOut         string
	seq                         int // rows per run; 0 when dynamic
	past, present               []kvPair
	kvType                      string
	heads, rows, headDim, width int
}

func (g *gqaIO) kvDesc() string {
	return fmt.Sprintf("%d layers of %s [1,%d,%d,%d]", len(g.past), g.kvType, g.heads, g.rows, g.headDim)
}

// loadBundle opens a decoder-pipeline bundle's four stages. The stages that the bundle puts on
// an accelerator (ctx and iter) run on the route's EP, the others on the CPU; a stage that
// fails to load fails the whole bundle.
func loadBundle(f *models.Folder, ep EP, maxCtx int) (decoder, error) {
	cfg := f.GenAI.Model
	names := bundleNamesOf(cfg.Decoder)
	st, err := readStages(f, names, ep)
	if err != nil {
		return nil, err
	}
	ctxIO, err := describeGQA(st[1], names)
	if err != nil {
		return nil, err
	}
	iterIO, err := describeGQA(st[2], names)
	if err != nil {
		return nil, err
	}
	if a, b := ctxIO.kvDesc(), iterIO.kvDesc(); a != b {
		return nil, fmt.Errorf("%s and %s disagree on the KV cache (%s vs %s): they are not from one build", st[1].Filename, st[2].Filename, a, b)
	}
	d := &bundleDecoder{rows: ctxIO.rows, hidden: ctxIO.width, window: ctxIO.seq}
	if d.rows <= 0 {
		d.rows = cfg.ContextLength
	}
	if sw := cfg.Decoder.SlidingWindow; sw != nil {
		d.pad = sw.PadValue
		if d.window == 0 {
			d.window = sw.WindowSize
		}
		if sw.WindowSize > 0 && sw.WindowSize != d.window {
			return nil, fmt.Errorf("%s: sliding_window.window_size is %d but %s takes %d rows", filepath.Join(f.Dir, "genai_config.json"), sw.WindowSize, st[1].Filename, d.window)
		}
	} else if cfg.PadTokenID != nil {
		d.pad = *cfg.PadTokenID
	}
	if d.window <= 0 || d.rows <= d.window || (iterIO.seq != 0 && iterIO.seq != 1) {
		return nil, fmt.Errorf("%s: cannot work out the prefill window (%d rows) and KV buffer (%d rows); the bundle's genai_config.json needs context_length and sliding_window.window_size", f.Dir, d.window, d.rows)
	}
	d.capacity = min(d.rows, maxCtx)
	if err := d.open(st, ctxIO, iterIO, names, ep); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// readStages finds the embeddings, ctx, iter and lm_head stages by what their graphs take and
// give, and checks compiled stages' context binaries.
func readStages(f *models.Folder, n bundleNames, ep EP) ([4]*bundleStage, error) {
	var st [4]*bundleStage // embeddings, ctx, iter, lm_head
	cfgPath := filepath.Join(f.Dir, "genai_config.json")
	for _, s := range f.GenAI.Model.Decoder.Pipeline {
		p := filepath.Join(f.Dir, s.Filename)
		info, err := onnxproto.ReadInfo(p)
		if err != nil {
			return st, fmt.Errorf("bundle stage %q: %w", s.Name, err)
		}
		if err := checkContextBinaries(p, info, stageEP(s, ep)); err != nil {
			return st, err
		}
		bs := &bundleStage{Stage: s, path: p, info: info}
		_, isDecoder := info.Input(fmt.Sprintf(n.pastKey, 0))
		_, hasLogits := info.Output(n.logits)
		_, hasIDs := info.Input(n.inputIDs)
		i := -1
		switch {
		case isDecoder: // iter runs on generated tokens only, or (no flags) takes one row
			i = 1
			hid := slices.IndexFunc(info.Inputs, func(v onnxproto.IO) bool { return len(v.Dims) == 3 })
			if s.RunOnPrompt == nil && s.RunOnTokenGen == nil && hid >= 0 && info.Inputs[hid].Dims[1].Value == 1 ||
				s.RunOnTokenGen != nil && *s.RunOnTokenGen && (s.RunOnPrompt == nil || !*s.RunOnPrompt) {
				i = 2
			}
		case hasLogits:
			i = 3
		case hasIDs:
			i = 0
		default:
			return st, fmt.Errorf("%s: stage %q (%s) takes neither %s, %s nor gives %s: EdgeChat runs bundles of embeddings, ctx, iter and lm_head", cfgPath, s.Name, s.Filename, n.inputIDs, fmt.Sprintf(n.pastKey, 0), n.logits)
		}
		if st[i] != nil {
			return st, fmt.Errorf("%s: stages %q and %q play the same part", cfgPath, st[i].Name, s.Name)
		}
		st[i] = bs
	}
	for i, role := range []string{"embeddings", "prefill (ctx)", "decode (iter)", "lm_head"} {
		if st[i] == nil {
			return st, fmt.Errorf("%s has no %s stage: EdgeChat runs bundles of embeddings, ctx, iter and lm_head", cfgPath, role)
		}
	}
	return st, nil
}

// describeGQA reads a ctx or iter graph's interface.
func describeGQA(s *bundleStage, n bundleNames) (*gqaIO, error) {
	g := &gqaIO{}
	var err error
	if g.past, err = kvNames(s.info.Inputs, pastPattern, n.pastKey, n.pastValue); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	if g.present, err = kvNames(s.info.Outputs, presentPattern, n.presentKey, n.presentValue); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	if len(g.past) == 0 || len(g.past) != len(g.present) {
		return nil, fmt.Errorf("%s: found %d past and %d present key/value pairs (%s, %s); expected one of each per layer", s.path, len(g.past), len(g.present), n.pastKey, n.presentKey)
	}
	known := map[string]bool{n.pastSeqLen: true, n.totalSeqLen: true}
	for _, p := range slices.Concat(g.past, g.present) {
		known[p.Key], known[p.Value] = true, true
	}
	for _, name := range []string{n.pastSeqLen, n.totalSeqLen} {
		if v, ok := s.info.Input(name); !ok || v.ElemType != "int32" {
			return nil, fmt.Errorf("%s needs an int32 input %s (GroupQueryAttention's sequence lengths); found %q", s.path, name, v.ElemType)
		}
	}
	for i, list := range [][]onnxproto.IO{s.info.Inputs, s.info.Outputs} {
		var other []onnxproto.IO
		for _, v := range list {
			if !known[v.Name] {
				other = append(other, v)
			}
		}
		if len(other) != 1 || other[0].ElemType != "float32" || len(other[0].Dims) != 3 {
			return nil, fmt.Errorf("%s: expected one float32 hidden-state tensor [1, seq, hidden] among the %s besides the KV cache, found %s", s.path, [2]string{"inputs", "outputs"}[i], listNames(other))
		}
		if i == 0 {
			g.hiddenIn, g.seq, g.width = other[0].Name, int(max(other[0].Dims[1].Value, 0)), int(other[0].Dims[2].Value)
		} else {
			g.hiddenOut = other[0].Name
		}
	}
	past, _ := s.info.Input(g.past[0].Key)
	if len(past.Dims) != 4 || past.Dims[1].Value <= 0 || past.Dims[3].Value <= 0 || g.width <= 0 {
		return nil, fmt.Errorf("%s: past key %s has shape %s; expected [1, kv_heads, context_length, head_dim]", s.path, past.Name, shapeString(past.Dims))
	}
	if past.ElemType != "float32" && past.ElemType != "float16" {
		return nil, fmt.Errorf("%s: KV cache type %s is not supported (float32 or float16)", s.path, past.ElemType)
	}
	g.kvType, g.heads, g.rows, g.headDim = past.ElemType, int(past.Dims[1].Value), int(max(past.Dims[2].Value, 0)), int(past.Dims[3].Value)
	return g, nil
}

// stageEP is the provider a stage runs on: the route's EP for stages whose session options
// name a provider (unless the route is the CPU's), else the CPU. The stage's provider options
// apply under the route's when both name the same provider.
func stageEP(s models.Stage, route EP) EP {
	name, opts := s.SessionOptions.Provider()
	if name == "" || route.Name == "" || strings.EqualFold(route.Name, "cpu") {
		return EP{Name: "cpu", Threads: route.Threads}
	}
	ep := route
	if strings.EqualFold(name, route.Name) {
		ep.Options = withDefaults(route.Options, opts)
	}
	if ep.Threads <= 0 {
		ep.Threads = s.SessionOptions.IntraOpNumThreads
	}
	return ep
}

// skippedEntries are session config entries never set when loading a bundle:
// ep.context_enable makes ONNX Runtime compile again (a compiled model must only be loaded),
// and disabling the CPU fallback breaks the boundary Q/DQ ops that run on the CPU.
var skippedEntries = []string{"ep.context_enable", "session.disable_cpu_ep_fallback"}

// stageOptions builds one stage's session options: its EP (stageEP), its config entries but
// skippedEntries, and ep.share_ep_contexts=1 when share is set (ctx and iter whose EPContext
// nodes name one context binary load it once).
func stageOptions(s models.Stage, route EP, share bool) (*ort.SessionOptions, EP, error) {
	ep := stageEP(s, route)
	opts, err := newSessionOptions(ep)
	if err != nil {
		return nil, ep, fmt.Errorf("bundle stage %s (%s) on %s: %w", s.Name, s.Filename, ep.Label(), err)
	}
	entries := maps.Clone(s.SessionOptions.ConfigEntries)
	if entries == nil {
		entries = map[string]string{}
	}
	if share {
		entries["ep.share_ep_contexts"] = "1"
	}
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		if slices.Contains(skippedEntries, k) {
			slog.Info("bundle: ignoring session config entry", "stage", s.Name, "key", k, "value", entries[k])
			continue
		}
		if err := opts.AddSessionConfigEntry(k, entries[k]); err != nil {
			opts.Destroy()
			return nil, ep, fmt.Errorf("bundle stage %s: session config %s=%s: %w", s.Name, k, entries[k], err)
		}
	}
	return opts, ep, nil
}

// openStage creates one stage's session.
func openStage(s *bundleStage, route EP, share bool, in, out []string) (*ort.DynamicAdvancedSession, error) {
	opts, ep, err := stageOptions(s.Stage, route, share)
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	sess, err := ort.NewDynamicAdvancedSession(s.path, in, out, opts)
	if err != nil {
		return nil, fmt.Errorf("load bundle stage %s (%s) on %s: %w", s.Name, s.path, ep.Label(), err)
	}
	return sess, nil
}

// open creates the four sessions, the shared KV buffers and every tensor the runs bind.
func (d *bundleDecoder) open(st [4]*bundleStage, cio, iio *gqaIO, n bundleNames, ep EP) error {
	emb, head := st[0], st[3]
	ids, _ := emb.info.Input(n.inputIDs)
	logits, _ := head.info.Output(n.logits)
	if len(emb.info.Outputs) != 1 || len(head.info.Inputs) != 1 {
		return fmt.Errorf("the embeddings (%s) and lm_head (%s) stages must have one hidden-state output and input", emb.Filename, head.Filename)
	}
	if ids.ElemType != "int64" && ids.ElemType != "int32" {
		return fmt.Errorf("%s: input_ids type %s is not supported (int64 or int32)", emb.path, ids.ElemType)
	}
	if nd := len(logits.Dims); nd == 0 || logits.Dims[nd-1].Value <= 0 || logits.ElemType != "float32" {
		return fmt.Errorf("%s: logits must be float32 with a fixed vocabulary size, found %s %s", head.path, logits.ElemType, shapeString(logits.Dims))
	}
	d.vocab = int(logits.Dims[len(logits.Dims)-1].Value)
	decIO := func(g *gqaIO) [2][]string {
		in, out := []string{g.hiddenIn}, []string{g.hiddenOut}
		for i := range g.past {
			in = append(in, g.past[i].Key, g.past[i].Value)
			out = append(out, g.present[i].Key, g.present[i].Value)
		}
		return [2][]string{append(in, n.pastSeqLen, n.totalSeqLen), out}
	}
	ios := [4][2][]string{{{ids.Name}, {emb.info.Outputs[0].Name}}, decIO(cio), decIO(iio), {{head.info.Inputs[0].Name}, {logits.Name}}}
	share := sharedContext(st[1].info, st[2].info)
	for i, sess := range []**ort.DynamicAdvancedSession{&d.emb, &d.ctx, &d.iter, &d.head} {
		var err error
		if *sess, err = openStage(st[i], ep, share && (i == 1 || i == 2), ios[i][0], ios[i][1]); err != nil {
			return err
		}
	}
	return d.allocate(cio, ids.ElemType == "int32")
}

// allocate creates the shared KV buffers and the tensors of both passes and of lm_head.
func (d *bundleDecoder) allocate(g *gqaIO, ids32 bool) error {
	elem, dtype := 4, ort.TensorElementDataType(ort.TensorElementDataTypeFloat)
	if g.kvType == "float16" {
		elem, dtype = 2, ort.TensorElementDataTypeFloat16
	}
	ts := &d.tensors
	kv := make([]ort.Value, 2*len(g.past))
	for i := range kv {
		buf := make([]byte, g.heads*d.rows*g.headDim*elem)
		d.kvBufs = append(d.kvBufs, buf)
		kv[i] = ts.add(ort.NewCustomDataTensor(ort.NewShape(1, int64(g.heads), int64(d.rows), int64(g.headDim)), buf, dtype))
		d.kvBytes += int64(len(buf))
	}
	d.kvHeads, d.kvRowBytes = g.heads, g.headDim*elem
	d.pastSeq, d.headIn, d.logits = []int32{0}, make([]float32, d.hidden), make([]float32, d.vocab)
	seqLens := []ort.Value{ts.add(ort.NewTensor(ort.NewShape(1, 1), d.pastSeq)), ts.add(ort.NewTensor(ort.NewShape(1), []int32{int32(d.rows)}))}
	d.headVals = []ort.Value{ts.add(ort.NewTensor(ort.NewShape(1, 1, int64(d.hidden)), d.headIn)), ts.add(ort.NewTensor(ort.NewShape(1, 1, int64(d.vocab)), d.logits))}
	d.prefill = d.newPass(d.ctx, d.window, ids32, kv, seqLens, nil)
	d.decode = d.newPass(d.iter, 1, ids32, kv, seqLens, d.headVals[0]) // iter writes into lm_head's input
	return ts.err
}

// newPass creates one pass's tensors for seq rows; out, when given, receives the hidden state.
func (d *bundleDecoder) newPass(dec *ort.DynamicAdvancedSession, seq int, ids32 bool, kv, seqLens []ort.Value, out ort.Value) bundlePass {
	ts := &d.tensors
	p := bundlePass{decoder: dec}
	var ids ort.Value
	if ids32 {
		p.ids32 = make([]int32, seq)
		ids = ts.add(ort.NewTensor(ort.NewShape(1, int64(seq)), p.ids32))
	} else {
		p.ids64 = make([]int64, seq)
		ids = ts.add(ort.NewTensor(ort.NewShape(1, int64(seq)), p.ids64))
	}
	shape := ort.NewShape(1, int64(seq), int64(d.hidden))
	hidden := ts.add(ort.NewTensor(shape, make([]float32, seq*d.hidden)))
	if out == nil {
		p.out = make([]float32, seq*d.hidden)
		out = ts.add(ort.NewTensor(shape, p.out))
	}
	p.embIn, p.embOut = []ort.Value{ids}, []ort.Value{hidden}
	p.in = slices.Concat([]ort.Value{hidden}, kv, seqLens)
	p.outs = slices.Concat([]ort.Value{out}, kv) // the same buffers: present is past
	return p
}

// tensorList keeps the tensors a decoder binds, for Close; the first error sticks.
type tensorList struct {
	list []ort.Value
	err  error
}

func (ts *tensorList) add(t ort.Value, err error) ort.Value {
	if err != nil {
		ts.err = cmp.Or(ts.err, fmt.Errorf("bundle tensor: %w", err))
		return nil
	}
	ts.list = append(ts.list, t)
	return t
}

func (d *bundleDecoder) Vocab() int     { return d.vocab }
func (d *bundleDecoder) Capacity() int  { return d.capacity }
func (d *bundleDecoder) Cached() []int  { return d.ids }
func (d *bundleDecoder) KVBytes() int64 { return d.kvBytes }

// Truncate keeps the first n cached tokens. Rows from n on stay in the buffer until the next
// run overwrites them; the sequence length passed to the graph keeps them out of attention.
func (d *bundleDecoder) Truncate(n int) { d.ids = d.ids[:min(max(n, 0), len(d.ids))] }

// Forward runs one token through iter, or several through ctx in windows of W rows starting at
// the current length, the last window padded at its end; lm_head then runs on the last real
// row only. A window that would pass the buffer's end starts earlier and recomputes cached
// rows instead.
func (d *bundleDecoder) Forward(ids []int, run *ort.RunOptions) ([]float32, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("forward: no tokens")
	}
	n := len(d.ids)
	if n+len(ids) > d.capacity {
		return nil, fmt.Errorf("the conversation needs %d tokens but the context holds %d", n+len(ids), d.capacity)
	}
	all := append(slices.Clip(d.ids), ids...)
	if len(ids) == 1 {
		if err := d.runPass(&d.decode, ids, n, run); err != nil {
			return nil, err
		}
	} else {
		ws := n
		for start := n; start < len(all); start += d.window {
			ws = min(start, d.rows-d.window)
			if err := d.runPass(&d.prefill, all[ws:min(ws+d.window, len(all))], ws+d.window-1, run); err != nil {
				return nil, err
			}
		}
		last := len(all) - 1 - ws
		copy(d.headIn, d.prefill.out[last*d.hidden:(last+1)*d.hidden])
	}
	if err := d.head.RunWithOptions(d.headVals[:1], d.headVals[1:], run); err != nil {
		return nil, err
	}
	d.ids = all
	return d.logits, nil
}

// runPass embeds ids (padded at the end to the pass's rows) and runs ctx or iter with
// past_seq_len = pastSeqLen, GroupQueryAttention's seqlens_k: the index of the pass's last
// row, so the pass writes rows pastSeqLen+1-rows … pastSeqLen.
func (d *bundleDecoder) runPass(p *bundlePass, ids []int, pastSeqLen int, run *ort.RunOptions) error {
	for i := range max(len(p.ids64), len(p.ids32)) {
		id := d.pad
		if i < len(ids) {
			id = ids[i]
		}
		if p.ids32 != nil {
			p.ids32[i] = int32(id)
		} else {
			p.ids64[i] = int64(id)
		}
	}
	d.pastSeq[0] = int32(pastSeqLen)
	if err := d.emb.RunWithOptions(p.embIn, p.embOut, run); err != nil {
		return err
	}
	return p.decoder.RunWithOptions(p.in, p.outs, run)
}

func (d *bundleDecoder) Close() error {
	var errs []error
	for _, s := range []**ort.DynamicAdvancedSession{&d.emb, &d.ctx, &d.iter, &d.head} {
		if *s != nil {
			errs = append(errs, (*s).Destroy())
			*s = nil
		}
	}
	for _, v := range d.tensors.list {
		v.Destroy()
	}
	d.tensors.list = nil
	return errors.Join(errs...)
}

// bundleState is a saved bundle cache: the first n rows of every head of every buffer.
type bundleState struct {
	ids  []int
	rows [][]byte
}

// Snapshot copies the cached rows (the conversation LRU keeps them).
func (d *bundleDecoder) Snapshot() (kvState, int64) {
	n, rb := len(d.ids), d.kvRowBytes
	st := bundleState{ids: append([]int(nil), d.ids...)}
	var size int64
	for _, b := range d.kvBufs {
		rows := make([]byte, d.kvHeads*n*rb)
		for h := range d.kvHeads {
			copy(rows[h*n*rb:(h+1)*n*rb], b[h*d.rows*rb:h*d.rows*rb+n*rb])
		}
		st.rows = append(st.rows, rows)
		size += int64(len(rows))
	}
	return st, size
}

// Restore puts a snapshot back.
func (d *bundleDecoder) Restore(s kvState) {
	st := s.(bundleState)
	n, rb := len(st.ids), d.kvRowBytes
	for i, b := range d.kvBufs {
		for h := range d.kvHeads {
			copy(b[h*d.rows*rb:h*d.rows*rb+n*rb], st.rows[i][h*n*rb:(h+1)*n*rb])
		}
	}
	d.ids = append(d.ids[:0], st.ids...)
}
