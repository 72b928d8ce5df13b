package ui

import (
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// OCRFinder is what a ModelTester may also do: say which tesseract a path (or "" for the
// usual places) gives — "tesseract 5.3.0 (/usr/bin/tesseract)" — or why there is none.
// Settings → Documents shows it beside the text recognition switch.
type OCRFinder interface {
	FindOCR(path string) (string, error)
}

// ocrState is the text recognition part of SettingsVM.
type ocrState struct {
	// OCR reads scanned PDFs with tesseract (config.OCR.Enabled).
	OCR binding.Bool
	// OCRFound says which tesseract was found, or why none was ("" while looking).
	OCRFound binding.String
	// OCRReady is set when tesseract was found: the switch can be turned on.
	OCRReady binding.Bool
	// ocrLooked is closed when the last look for tesseract is over (tests wait on it).
	ocrMu     sync.Mutex
	ocrLooked chan struct{}
}

func newOCRState() ocrState {
	return ocrState{OCR: binding.NewBool(), OCRFound: binding.NewString(), OCRReady: binding.NewBool()}
}

// FindOCR looks for tesseract at the path the settings give, off the main goroutine, and
// shows what it found in OCRFound and OCRReady.
func (vm *SettingsVM) FindOCR() <-chan struct{} {
	done := make(chan struct{})
	vm.ocrMu.Lock()
	vm.ocrLooked = done
	vm.ocrMu.Unlock()
	f, ok := vm.tester.(OCRFinder)
	if !ok {
		_ = vm.OCRFound.Set("Text recognition is not available here.")
		close(done)
		return done
	}
	path := get[string](vm.Fields["ocr.tesseract"])
	_ = vm.OCRFound.Set("Looking for tesseract…")
	go func() {
		defer close(done)
		found, err := f.FindOCR(path)
		if err != nil {
			_ = vm.OCRReady.Set(false)
			_ = vm.OCRFound.Set(capitalize(err.Error()) + ".")
			return
		}
		_ = vm.OCRReady.Set(true)
		_ = vm.OCRFound.Set("Found " + found + ".")
	}()
	return done
}

// ocrLookDone is closed when the last FindOCR is over.
func (vm *SettingsVM) ocrLookDone() <-chan struct{} {
	vm.ocrMu.Lock()
	defer vm.ocrMu.Unlock()
	return vm.ocrLooked
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// ocrCheck is the text recognition switch: disabled, saying why, while tesseract is not
// found (unless it is on already, so that it can be turned off).
func (v *SettingsView) ocrCheck() (*widget.Check, *widget.Label) {
	vm := v.vm
	c := widget.NewCheckWithData("Read scanned PDFs with text recognition (tesseract): slow, seconds a page", vm.OCR)
	found := widget.NewLabelWithData(vm.OCRFound)
	found.Wrapping = fyne.TextWrapWord
	found.SizeName = theme.SizeNameCaptionText
	sync := func() {
		if get[bool](vm.OCRReady) || get[bool](vm.OCR) {
			c.Enable()
		} else {
			c.Disable()
		}
	}
	v.on(vm.OCRReady, sync)
	v.on(vm.OCR, sync)
	v.OCR = c
	return c, found
}
