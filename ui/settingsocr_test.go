package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"edgechat/config"
)

// ocrTester is a fakeTester that finds tesseract as find says.
type ocrTester struct {
	fakeTester
	find func(path string) (string, error)
}

func (f ocrTester) FindOCR(path string) (string, error) { return f.find(path) }

func waitOCR(t *testing.T, vm *SettingsVM) {
	t.Helper()
	select {
	case <-vm.ocrLookDone():
	case <-time.After(10 * time.Second):
		t.Fatal("the look for tesseract did not end")
	}
}

func TestSettingsViewOCR(t *testing.T) {
	test.NewTempApp(t)
	for _, c := range []struct {
		name     string
		find     func(string) (string, error)
		enabled  bool
		found    string
		disabled bool
	}{
		{"found", func(string) (string, error) { return "tesseract 5.3.0 (/usr/bin/tesseract)", nil }, false,
			"Found tesseract 5.3.0 (/usr/bin/tesseract).", false},
		{"missing", func(string) (string, error) {
			return "", errors.New("tesseract (text recognition) is not installed: install it (sudo apt install tesseract-ocr)")
		}, false, "Tesseract (text recognition) is not installed: install it (sudo apt install tesseract-ocr).", true},
		{"missing but on: can be turned off", func(string) (string, error) { return "", errors.New("gone") }, true, "Gone.", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := config.Defaults()
			s.OCR.Enabled = c.enabled
			st := &memSettings{s: s}
			vm := NewSettingsVM(st, ocrTester{find: c.find})
			waitOCR(t, vm)
			w := test.NewTempWindow(t, nil)
			v := NewSettingsView(vm, w, func() {})
			w.SetContent(v.Content)
			if got := get[string](vm.OCRFound); got != c.found {
				t.Errorf("found %q, want %q", got, c.found)
			}
			if v.OCR.Disabled() != c.disabled {
				t.Errorf("switch disabled = %v, want %v", v.OCR.Disabled(), c.disabled)
			}
			if !strings.Contains(v.OCR.Text, "tesseract") {
				t.Errorf("switch says %q", v.OCR.Text)
			}
			if c.disabled {
				return
			}
			test.Tap(v.OCR)
			if got, _ := vm.Collect(); got.OCR.Enabled == c.enabled || !vm.Dirty() {
				t.Errorf("OCR.Enabled = %v after a tap (dirty %v)", got.OCR.Enabled, vm.Dirty())
			}
		})
	}
}
