package decoder

import (
	"errors"
	"fmt"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference"
	"edgechat/inference/ort/attnop"
	"edgechat/internal/eps"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// EdgeChat's own attention kernels (inference/ort/attnop): the CPU copies' GroupQueryAttention
// nodes run on them where the build carries them, the CPU and ONNX Runtime can run them, the
// model's attention has a shape they take and the copy passes the attention check
// (optimizedGraph); everywhere else, and when they are turned off, the copies keep ONNX
// Runtime's GroupQueryAttention. Every session over such a copy registers them
// (newGraphOptions); should that fail, the load runs the plain copy instead (Open).

// AttnKernelVar is the environment variable that turns the kernels off: "off" (or "0",
// "false") runs ONNX Runtime's GroupQueryAttention, for measuring the kernels against it or
// when they misbehave.
const AttnKernelVar = "EDGECHAT_ATTN_KERNEL"

// The kernels' package, as variables so that tests can play a build whose registration fails.
var (
	kernelsAvailable = attnop.Available
	matMulAvailable  = attnop.MatMulAvailable
	registerKernels  = attnop.Register
	kernelSupports   = attnop.Supports
)

// errKernelsOff says the kernels were turned off.
var errKernelsOff = errors.New("turned off (" + AttnKernelVar + "=off or --attn-kernel=off)")

// kernelsOff says whether AttnKernelVar turns the kernels off.
func kernelsOff() bool { return switchedOff(AttnKernelVar) }

// AttnKernelStatus says whether CPU loads run attention on EdgeChat's kernels: nil when they
// do (for models whose attention they take), else why not (for `edgechat sys`). ONNX Runtime
// must be loaded.
func AttnKernelStatus() error { return kernelStatus(kernelsOff(), errKernelsOff, kernelsAvailable) }

// kernelStatus is what AttnKernelStatus and MatMulKernelStatus say: errOff when their switch
// is off, else whether the build and CPU carry them (available) and they can be registered.
func kernelStatus(off bool, errOff error, available func() error) error {
	if off {
		return errOff
	}
	if err := available(); err != nil {
		return err
	}
	return probeRegister()
}

// probeRegister registers the kernels on a session options object of its own: what every
// session over a kernel copy will do.
func probeRegister() error {
	o, err := ort.NewSessionOptions()
	if err != nil {
		return fmt.Errorf("create session options: %w", err)
	}
	defer o.Destroy()
	if err := registerKernels(o); err != nil {
		return fmt.Errorf("register EdgeChat's attention kernels: %w", err)
	}
	return nil
}

// attnKernel is the rewrite that moves folder f's attention onto the kernels for a load with
// options o, or why it stays on GroupQueryAttention.
func attnKernel(f *models.Folder, o inference.LoadOptions) (optimize.AttentionKernel, error) {
	var none optimize.AttentionKernel
	switch {
	case !eps.IsCPU(o.EP.Name):
		return none, errors.New("they run on the CPU only")
	case o.PlainAttention:
		return none, errKernelsOff
	}
	if err := AttnKernelStatus(); err != nil {
		return none, err
	}
	headSize, heads, kvHeads := attentionShape(f)
	if heads == 0 {
		return none, errors.New("the model's config does not give its attention's heads and head size")
	}
	if !kernelSupports(headSize, heads, kvHeads) {
		return none, fmt.Errorf("they do not take head size %d with %d query and %d KV heads", headSize, heads, kvHeads)
	}
	return optimize.AttentionKernel{Domain: attnop.Domain, DomainInt8: attnop.DomainInt8, HeadSize: headSize, Heads: heads, KVHeads: kvHeads,
		QKNorm: !qkFoldOff()}, nil
}

// QKFoldVar is the environment variable that keeps a layer's q/k norms (Qwen3's q_norm and
// k_norm), with the Split and Reshapes around them, as nodes of their own instead of inside the
// kernels' attention node (optimize.AttentionKernel.QKNorm): "off" (or "0", "false", "no"), for
// measuring the fold or when it misbehaves.
const QKFoldVar = "EDGECHAT_QK_FOLD"

// qkFoldOff says whether QKFoldVar turns the fold off.
func qkFoldOff() bool { return switchedOff(QKFoldVar) }

// attentionShape reads the head size and the query and KV heads of f's attention from its
// config (config.json or genai_config.json); heads is 0 when it does not say.
func attentionShape(f *models.Folder) (headSize, heads, kvHeads int) {
	switch {
	case f.Config != nil:
		c := f.Config
		headSize, heads, kvHeads = c.HeadDim, c.NumAttentionHeads, c.NumKeyValueHeads
		if headSize == 0 && heads > 0 {
			headSize = c.HiddenSize / heads
		}
	case f.GenAI != nil:
		d := f.GenAI.Model.Decoder
		headSize, heads, kvHeads = d.HeadSize, d.NumAttentionHeads, d.NumKeyValueHeads
		if headSize == 0 && heads > 0 {
			headSize = d.HiddenSize / heads
		}
	}
	if kvHeads == 0 {
		kvHeads = heads
	}
	if headSize <= 0 {
		heads = 0
	}
	return headSize, heads, kvHeads
}

// KernelError says a session over a copy on the kernels (attention or products) could not
// register them: the load then runs the copy without them.
type KernelError struct{ Err error }

func (e *KernelError) Error() string {
	return "register EdgeChat's kernels: " + e.Err.Error()
}

func (e *KernelError) Unwrap() error { return e.Err }

// registerFor registers the kernels on opts when the graph info runs nodes on them.
func registerFor(opts *ort.SessionOptions, info *proto.ModelInfo) error {
	if kernelNodes(info) == 0 {
		return nil
	}
	if err := registerKernels(opts); err != nil {
		return &KernelError{Err: err}
	}
	return nil
}

// newGraphOptions are newSessionOptions for a session over the graph info describes, with the
// kernels registered when it runs nodes on them.
func newGraphOptions(ep inference.EP, info *proto.ModelInfo) (*ort.SessionOptions, error) {
	opts, err := newSessionOptions(ep)
	if err != nil {
		return nil, err
	}
	if err := registerFor(opts, info); err != nil {
		opts.Destroy()
		return nil, err
	}
	return opts, nil
}

// KernelSetup is what a session over the graph at path needs on its options before it is
// made (loop.Options.Setup), for tools that open the app's copies: the kernels registered
// when the graph runs nodes on them (attention or products), else nothing (nil).
func KernelSetup(path string) (func(*ort.SessionOptions) error, error) {
	info, err := proto.ReadInfo(path)
	if err != nil {
		return nil, err
	}
	if kernelNodes(info) == 0 {
		return nil, nil
	}
	return func(o *ort.SessionOptions) error { return registerFor(o, info) }, nil
}

// AttentionOf says what runs the attention of the graph at path (the copy a decoder runs):
// EdgeChat's kernels, ONNX Runtime's GroupQueryAttention, or the graph's own nodes, and which
// KV cache it keeps (32-bit, or 8-bit per row or per channel); "" when the graph cannot be read.
func AttentionOf(path string) string {
	info, err := proto.ReadInfo(path)
	if err != nil {
		return ""
	}
	cache := "32-bit KV cache"
	switch info.Metadata[optimize.MetaKVInt8] {
	case "":
	case optimize.MetaKVRow:
		cache = "8-bit KV cache, a scale per row"
	case "per_channel_4bit":
		cache = "4-bit KV cache, calibrated scales per channel"
	default:
		cache = "8-bit KV cache, calibrated scales per channel"
	}
	switch {
	case attnop.Nodes(info) > 0:
		return fmt.Sprintf("EdgeChat's kernels (%d nodes), %s", attnop.Nodes(info), cache)
	case attnop.AttentionNodes(info) > 0:
		return "ONNX Runtime's GroupQueryAttention, " + cache
	}
	return "the graph's own nodes"
}
