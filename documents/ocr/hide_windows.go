package ocr

import (
	"os/exec"
	"syscall"
)

// hideWindow runs tesseract without a console window flashing up over EdgeChat's.
func hideWindow(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: 0x08000000} // CREATE_NO_WINDOW
}
