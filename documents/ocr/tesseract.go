// Package ocr reads the text of scanned PDFs with the tesseract program (text recognition,
// OCR): it finds the program, checks its language data, runs it on each page's images and
// reports progress page by page.
package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Why text recognition cannot run.
var (
	ErrNotInstalled = errors.New("tesseract (text recognition) is not installed")
	ErrNoLanguage   = errors.New("tesseract has no data for the language")
)

// WindowsPath is where the Windows installers of tesseract put it.
const WindowsPath = `C:\Program Files\Tesseract-OCR\tesseract.exe`

// Engine is one tesseract program.
type Engine struct {
	Path    string
	Version string // "5.3.0"
}

// Find returns the tesseract program: configured, when set (a file, or a folder holding
// it), else the one on PATH, else on Windows the one in the installers' folder. It runs
// `tesseract --version` to check it.
func Find(ctx context.Context, configured string) (Engine, error) {
	var candidates []string
	if configured != "" {
		if fi, err := os.Stat(configured); err == nil && fi.IsDir() {
			configured = filepath.Join(configured, exeName())
		}
		candidates = append(candidates, configured)
	} else {
		if p, err := exec.LookPath("tesseract"); err == nil {
			candidates = append(candidates, p)
		}
		if runtime.GOOS == "windows" {
			candidates = append(candidates, WindowsPath)
		}
	}
	for _, p := range candidates {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		out, err := run(ctx, 20*time.Second, p, "--version")
		if err != nil {
			return Engine{}, fmt.Errorf("%w: %s does not run: %v", ErrNotInstalled, p, err)
		}
		return Engine{Path: p, Version: version(out)}, nil
	}
	if configured != "" {
		return Engine{}, fmt.Errorf("%w: there is no %s — %s", ErrNotInstalled, configured, InstallAdvice())
	}
	return Engine{}, fmt.Errorf("%w: %s", ErrNotInstalled, InstallAdvice())
}

func exeName() string {
	if runtime.GOOS == "windows" {
		return "tesseract.exe"
	}
	return "tesseract"
}

// InstallAdvice says how to install tesseract on this system.
func InstallAdvice() string {
	switch runtime.GOOS {
	case "windows":
		return `install Tesseract (the installer linked from github.com/tesseract-ocr/tesseract, into C:\Program Files\Tesseract-OCR), or set its path in Settings → Documents`
	case "darwin":
		return "install it (brew install tesseract), or set its path in Settings → Documents"
	}
	return "install it (sudo apt install tesseract-ocr, or your system's tesseract package), or set its path in Settings → Documents"
}

// version is the number in the first line of `tesseract --version` ("tesseract 5.3.0").
func version(out []byte) string {
	line, _, _ := strings.Cut(string(out), "\n")
	f := strings.Fields(line)
	if len(f) >= 2 {
		return strings.TrimPrefix(f[1], "v")
	}
	return strings.TrimSpace(line)
}

// run runs the program with args (within limit) and returns what it printed on stdout; a
// failure says the last line it printed on stderr.
func run(ctx context.Context, limit time.Duration, prog string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 2 * time.Second
	if os.Getenv("OMP_THREAD_LIMIT") == "" {
		// One thread: tesseract's OpenMP threads spin when the cores are busy (a reply
		// being written, other programs); on 2 busy cores a page took 56–66 s with 2
		// threads and 6.8–7.5 s with 1. ocrmypdf runs it so too.
		cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	}
	hideWindow(cmd)
	err := cmd.Run()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if last := lastLine(stderr.String()); last != "" {
			err = fmt.Errorf("%v: %s", err, last)
		}
		return nil, err
	}
	return stdout.Bytes(), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Languages lists the languages tesseract has data for (`tesseract --list-langs`).
func (e Engine) Languages(ctx context.Context) ([]string, error) {
	out, err := run(ctx, 20*time.Second, e.Path, "--list-langs")
	if err != nil {
		return nil, fmt.Errorf("tesseract --list-langs: %w", err)
	}
	var langs []string
	for i, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); i > 0 && line != "" {
			langs = append(langs, line)
		}
	}
	return langs, nil
}

// CheckLanguages returns an error wrapping ErrNoLanguage when tesseract lacks the data of
// one of langs ("eng+deu").
func (e Engine) CheckLanguages(ctx context.Context, langs string) error {
	have, err := e.Languages(ctx)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(langs, "+") {
		if !slices.Contains(have, l) {
			return fmt.Errorf("%w %q (it has %s) — install it (Debian: the tesseract-ocr-%s package; Windows: choose it in tesseract's installer), or change the languages in Settings → Documents",
				ErrNoLanguage, l, strings.Join(have, ", "), l)
		}
	}
	return nil
}

// pageLimit bounds one image's recognition: a page takes seconds.
const pageLimit = 5 * time.Minute

// Recognize returns the text tesseract reads in one image (a file of format "png", "jpeg"
// or "jp2"), at dpi when known (0: tesseract's guess), in langs ("eng+deu").
func (e Engine) Recognize(ctx context.Context, img []byte, format string, dpi int, langs string) (string, error) {
	f, err := os.CreateTemp("", "edgechat-ocr-*."+format)
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(img)
	if err2 := f.Close(); err == nil {
		err = err2
	}
	if err != nil {
		return "", err
	}
	args := []string{f.Name(), "stdout", "-l", langs}
	if dpi >= 70 && dpi <= 2400 {
		args = append(args, "--dpi", strconv.Itoa(dpi))
	}
	out, err := run(ctx, pageLimit, e.Path, args...)
	if err != nil {
		return "", err
	}
	return string(out), nil
}
