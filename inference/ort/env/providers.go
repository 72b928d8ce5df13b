package env

import (
	"errors"
	"fmt"
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

func checkProvider(name string, options map[string]string) error {
	o, err := ort.NewSessionOptions()
	if err != nil {
		return err
	}
	defer o.Destroy()
	switch strings.ToUpper(strings.TrimSuffix(name, "ExecutionProvider")) {
	case "CPU":
		return nil
	case "DML", "DIRECTML":
		return o.AppendExecutionProviderDirectML(0)
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
