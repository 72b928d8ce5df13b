package env

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"errors"
	"fmt"
)

// peInfo is what the headers and resources of a Windows DLL say about it.
type peInfo struct {
	arch    string // GOARCH spelling
	version string // FileVersion of the version resource: "1.30.0"
}

const (
	machineARM64EC = 0xa641
	fixedInfoSig   = 0xfeef04bd // VS_FIXEDFILEINFO.dwSignature
)

// readPE reads a DLL's CPU (the COFF header's Machine) and its file version (the
// VS_FIXEDFILEINFO of its version resource) with debug/pe, without loading it. A file that
// makes debug/pe panic is reported as not a DLL.
func readPE(path string) (info peInfo, err error) {
	defer func() {
		if recover() != nil {
			info, err = peInfo{}, errors.New("not a Windows DLL")
		}
	}()
	f, err := pe.Open(path)
	if err != nil {
		return peInfo{}, errors.New("not a Windows DLL")
	}
	defer f.Close()
	switch f.Machine {
	case pe.IMAGE_FILE_MACHINE_AMD64:
		info.arch = "amd64"
	case pe.IMAGE_FILE_MACHINE_ARM64:
		info.arch = "arm64"
	case pe.IMAGE_FILE_MACHINE_I386:
		info.arch = "386"
	case machineARM64EC:
		info.arch = "arm64ec"
	default:
		return peInfo{}, fmt.Errorf("a Windows DLL for an unknown CPU (machine %#x)", f.Machine)
	}
	if s := f.Section(".rsrc"); s != nil {
		data, err := s.Data()
		if err != nil && len(data) == 0 {
			return info, nil
		}
		info.version = fixedFileVersion(data)
	}
	return info, nil
}

// fixedFileVersion finds VS_FIXEDFILEINFO in resource data and formats its file version as
// ONNX Runtime does ("1.30.0"; the build number, the fourth part, is left out).
func fixedFileVersion(rsrc []byte) string {
	var sig [4]byte
	binary.LittleEndian.PutUint32(sig[:], fixedInfoSig)
	for off := 0; ; {
		i := bytes.Index(rsrc[off:], sig[:])
		if i < 0 {
			return ""
		}
		i += off
		if i%4 == 0 && i+16 <= len(rsrc) { // the structure is DWORD-aligned
			ms := binary.LittleEndian.Uint32(rsrc[i+8:])
			ls := binary.LittleEndian.Uint32(rsrc[i+12:])
			return fmt.Sprintf("%d.%d.%d", ms>>16, ms&0xffff, ls>>16)
		}
		off = i + 1
	}
}
