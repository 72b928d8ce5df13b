package env

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	ort "github.com/yalue/onnxruntime_go"
)

// apiVersion is the ONNX Runtime C API version onnxruntime_go's header declares.
const apiVersion = 24

// Providers lists the execution providers the loaded library says it has
// (GetAvailableProviders). The list can name providers whose own libraries are missing; see
// CheckProvider for the honest test.
func Providers() ([]string, error) {
	info, ok := Loaded()
	if !ok {
		return nil, errors.New("ONNX Runtime is not loaded")
	}
	return listProviders(info.Path)
}

// ProviderCheck is the result of really appending a provider to a session's options.
type ProviderCheck struct {
	Name    string `json:"name"`
	Listed  bool   `json:"listed"`
	Appends bool   `json:"appends"`
	Error   string `json:"error,omitempty"`
}

// CheckProvider tries to append the named provider ("QNN", "DML", "WebGPU", "CPU") to fresh
// session options, with the given options; the error carries ONNX Runtime's words, with the
// Windows error code it names spelt out (see Explain).
func CheckProvider(name string, options map[string]string) error {
	return Explain(checkProvider(name, options))
}

// CheckProviders reports, for each of names (ONNX Runtime's provider names, e.g. the ones
// EdgeChat offers) and then each other provider the library lists, whether it is listed and
// whether it really appends to a session's options, with ONNX Runtime's reason when not (a
// listed provider may still lack its own libraries or device).
func CheckProviders(names []string) []ProviderCheck {
	// ONNX Runtime logs each refused provider as an error; the report says it better.
	_ = ort.SetEnvironmentLogLevel(ort.LoggingLevelFatal)
	defer ort.SetEnvironmentLogLevel(ort.LoggingLevelWarning)
	listed, _ := Providers()
	seen := map[string]bool{}
	var out []ProviderCheck
	add := func(name string) {
		short := strings.TrimSuffix(name, "ExecutionProvider")
		key := strings.ToLower(short)
		if key == "dml" {
			key = "directml"
		}
		if seen[key] {
			return
		}
		seen[key] = true
		c := ProviderCheck{Name: short}
		for _, l := range listed {
			ls := strings.ToLower(strings.TrimSuffix(l, "ExecutionProvider"))
			c.Listed = c.Listed || ls == key || (key == "directml" && ls == "dml")
		}
		if err := CheckProvider(short, nil); err != nil {
			c.Error = err.Error()
		} else {
			c.Appends = true
		}
		out = append(out, c)
	}
	for _, n := range names {
		add(n)
	}
	for _, l := range listed {
		add(l)
	}
	return out
}

func checkProvider(name string, options map[string]string) error {
	o, err := ort.NewSessionOptions()
	if err != nil {
		return err
	}
	defer o.Destroy()
	return AppendProvider(o, name, options)
}

// AppendProvider adds ONNX Runtime's provider name ("CPU", "QNN", "DML", "WebGPU", "CUDA",
// "TensorRT"; a trailing "ExecutionProvider" and case are ignored) to o with options. It is the
// one place EdgeChat turns a provider name into ONNX Runtime calls: sessions and the checks
// behind `edgechat sys` and Settings' Test both come here. The CPU is always there: nothing is
// appended for it. DirectML reads its adapter from options["device_id"] (default 0).
func AppendProvider(o *ort.SessionOptions, name string, options map[string]string) error {
	switch strings.ToUpper(strings.TrimSuffix(name, "ExecutionProvider")) {
	case "CPU":
		return nil
	case "DML", "DIRECTML":
		id := 0
		if s := options["device_id"]; s != "" {
			var err error
			if id, err = strconv.Atoi(s); err != nil {
				return fmt.Errorf("DirectML device_id %q is not a number", s)
			}
		}
		return o.AppendExecutionProviderDirectML(id)
	case "CUDA":
		c, err := ort.NewCUDAProviderOptions()
		if err != nil {
			return err
		}
		defer c.Destroy()
		return o.AppendExecutionProviderCUDA(c)
	case "TENSORRT":
		c, err := ort.NewTensorRTProviderOptions()
		if err != nil {
			return err
		}
		defer c.Destroy()
		return o.AppendExecutionProviderTensorRT(c)
	case "WEBGPU":
		return o.AppendExecutionProvider("WebGPU", options)
	default:
		return o.AppendExecutionProvider(name, options)
	}
}

// hresults are Windows error codes that DirectML's and QNN's errors carry as bare hex.
var hresults = map[string]string{
	"887A0004": "DXGI_ERROR_UNSUPPORTED: no Direct3D 12 GPU that DirectML can use",
	"887A0005": "DXGI_ERROR_DEVICE_REMOVED: the GPU was removed or its driver restarted",
	"887A0001": "DXGI_ERROR_INVALID_CALL",
	"80004005": "E_FAIL",
	"8007007E": "ERROR_MOD_NOT_FOUND: a DLL it needs is missing",
}

// Explain appends the meaning of a Windows error code that err's text ends with, e.g. "…
// Exception(1) tid(10c) 887A0004", as ONNX Runtime's DirectML provider reports a PC without a
// Direct3D 12 device. Other errors come back unchanged.
func Explain(err error) error {
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(err.Error())
	code := strings.ToUpper(msg[strings.LastIndexAny(msg, " \t\n")+1:])
	if meaning, ok := hresults[code]; ok {
		return fmt.Errorf("%w (%s)", err, meaning)
	}
	return err
}
