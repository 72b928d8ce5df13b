package ortenv

import (
	"errors"
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
// session options, with the given options; the error carries ONNX Runtime's words.
func CheckProvider(name string, options map[string]string) error {
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
