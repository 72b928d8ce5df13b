package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"strings"
	"text/tabwriter"

	"edgechat/inference/ort/decoder"
	ortenv "edgechat/inference/ort/env"
	"edgechat/internal/eps"
	"edgechat/internal/host"
	"edgechat/internal/paths"
)

func init() {
	register(Command{Name: "sys", Summary: "show ONNX Runtime, its execution providers and this machine's CPU", Run: runSys})
}

// sysReport is what `edgechat sys` prints.
type sysReport struct {
	ORTVersion   string                 `json:"ort_version"`
	ORTLibrary   string                 `json:"ort_library"`
	ORTSource    string                 `json:"ort_source"`
	ORTError     string                 `json:"ort_error,omitempty"`
	Providers    []ortenv.ProviderCheck `json:"providers"`
	CPU          string                 `json:"cpu"`
	LogicalCPUs  int                    `json:"logical_cpus"`
	PhysicalCore int                    `json:"physical_cores"`
	OS           string                 `json:"os"`
	Arch         string                 `json:"arch"`
	// QNNRuntimes are the ONNX Runtime builds found where QNN-capable ones are installed
	// (Windows: Python onnxruntime-qnn, NuGet, AI Toolkit, Foundry Local).
	QNNRuntimes []ortenv.Candidate `json:"qnn_runtimes"`
	// AttnKernel is "used" when CPU models whose attention EdgeChat's own kernels take run it
	// on them, else why not (decoder.AttnKernelStatus).
	AttnKernel string `json:"attention_kernels"`
	// MatMulKernel is "used" when CPU models' int4 products run on EdgeChat's own kernel (the
	// products it takes), else why not (decoder.MatMulKernelStatus).
	MatMulKernel string `json:"matmul_kernel"`
	// KVCache is the KV cache a CPU load keeps with the default setting (auto): 8-bit with a
	// scale per row where the attention kernels run, else 32-bit and why (decoder.KVRowStatus).
	KVCache string `json:"kv_cache"`
}

func runSys(env Env) error {
	fs := flag.NewFlagSet("sys", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	ortLib := fs.String("ort-lib", "", "ONNX Runtime shared library (default: search)")
	var folders listFlag
	fs.Var(&folders, "qnn-search", "also look for a QNN-capable ONNX Runtime in this Python install, virtual environment or folder (repeatable)")
	if err := fs.Parse(env.Args); err != nil {
		return errUsage
	}
	r := sysReport{CPU: paths.CPUModel(), LogicalCPUs: runtime.NumCPU(), PhysicalCore: host.PhysicalCores(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	info, err := ortenv.Init(*ortLib)
	if err != nil {
		r.ORTError = err.Error()
	} else {
		r.ORTVersion, r.ORTLibrary, r.ORTSource = info.Version, info.Path, string(info.Source)
		r.Providers = ortenv.CheckProviders(eps.ORTNames())
		for i := range r.Providers {
			r.Providers[i].Error = firstLine(r.Providers[i].Error)
		}
		r.AttnKernel = kernelState(decoder.AttnKernelStatus())
		r.MatMulKernel = kernelState(decoder.MatMulKernelStatus())
		r.KVCache = kvCacheState(decoder.KVRowStatus())
	}
	r.QNNRuntimes = ortenv.Discover(ortenv.DiscoverOptions{Folders: folders})
	ortenv.Probe(r.QNNRuntimes)
	if r.QNNRuntimes == nil {
		r.QNNRuntimes = []ortenv.Candidate{}
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	printSys(env, r)
	printQNNRuntimes(env, r.QNNRuntimes)
	if r.ORTError != "" {
		return fmt.Errorf("ONNX Runtime: %s", r.ORTError)
	}
	return nil
}

// kernelState is sysReport.AttnKernel or MatMulKernel for AttnKernelStatus's or
// MatMulKernelStatus's answer.
func kernelState(err error) string {
	if err != nil {
		return "not used: " + firstLine(err.Error())
	}
	return "used"
}

// kvCacheState is sysReport.KVCache for KVRowStatus's answer.
func kvCacheState(err error) string {
	if err != nil {
		return "32-bit: " + firstLine(err.Error())
	}
	return "8-bit, a scale per row (EdgeChat's kernels), for models whose attention they take; else 32-bit"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func printSys(env Env, r sysReport) {
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	defer w.Flush()
	if r.ORTError != "" {
		fmt.Fprintf(w, "ONNX Runtime\tnot loaded: %s\n", r.ORTError)
	} else {
		fmt.Fprintf(w, "ONNX Runtime\t%s\n", r.ORTVersion)
		fmt.Fprintf(w, "Library\t%s (%s)\n", r.ORTLibrary, r.ORTSource)
	}
	fmt.Fprintf(w, "CPU\t%s — %d physical cores, %d logical (%s/%s)\n", r.CPU, r.PhysicalCore, r.LogicalCPUs, r.OS, r.Arch)
	if r.AttnKernel != "" {
		fmt.Fprintf(w, "Attention kernels\t%s\n", r.AttnKernel)
	}
	if r.MatMulKernel != "" {
		fmt.Fprintf(w, "Int4 product kernel\t%s\n", r.MatMulKernel)
	}
	if r.KVCache != "" {
		fmt.Fprintf(w, "KV cache (auto)\t%s\n", r.KVCache)
	}
	if len(r.Providers) > 0 {
		fmt.Fprintln(w, "\nProvider\tListed\tUsable\tWhy not")
		for _, p := range r.Providers {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", p.Name, yesNo(p.Listed), yesNo(p.Appends), p.Error)
		}
	}
}

// printQNNRuntimes lists the QNN-capable ONNX Runtime builds found on the PC.
func printQNNRuntimes(env Env, cs []ortenv.Candidate) {
	if len(cs) == 0 {
		if runtime.GOOS == "windows" {
			fmt.Fprintln(env.Stdout, "\nNo QNN-capable ONNX Runtime found (pip install onnxruntime-qnn, the NuGet package Microsoft.ML.OnnxRuntime.QNN, AI Toolkit or Foundry Local bring one; --qnn-search DIR looks in a venv).")
		}
		return
	}
	fmt.Fprintln(env.Stdout, "\nONNX Runtime builds for the NPU on this PC (use one with --ort-lib, EDGECHAT_ORT_LIB or Settings):")
	for _, c := range cs {
		state := "usable: " + strings.Join(c.Providers, ", ")
		if !c.Usable() {
			state = "not usable: " + c.Problem
		}
		version := c.Version
		if version == "" {
			version = "?"
		}
		fmt.Fprintf(env.Stdout, "  %s  %s\n      %s (%s)\n      %s\n", version, c.Path, c.Origin, ortenv.ArchName(c.Arch), state)
	}
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ", ") }

func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
