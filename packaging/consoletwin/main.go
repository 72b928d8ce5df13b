// Command consoletwin writes the console twin of a Windows GUI program: the same bytes with the
// PE header's subsystem set to 3 (console) instead of 2 (GUI), and the PE checksum recomputed.
// cmd and PowerShell wait for a console program, give it their console and return its exit
// code; Explorer opens a GUI program without a console. packaging/build.sh ships EdgeChat.exe
// and its twin edgechat.com (see README.md, "Windows command line").
//
//	consoletwin GUI.exe OUT.com
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: consoletwin GUI.exe OUT.com")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err == nil {
		err = twin(data)
	}
	if err == nil {
		err = os.WriteFile(os.Args[2], data, 0o755)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "consoletwin: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

const (
	subsystemGUI     = 2
	subsystemConsole = 3
	checksumOffset   = 24 + 64 // from the PE signature: signature, COFF header, optional header field
	subsystemOffset  = 24 + 68
)

// twin turns the GUI program in data into its console twin, in place. Where the header holds
// a checksum the twin gets its own, computed afresh. (Windows checks it only for drivers; the
// one mingw's build of EdgeChat.exe carries is already stale, because the Go linker rewrites
// the file after ld computed it.)
func twin(data []byte) error {
	if len(data) < 64 || string(data[:2]) != "MZ" {
		return errors.New("not a Windows program (no MZ header)")
	}
	pe := int(binary.LittleEndian.Uint32(data[60:]))
	if pe < 0 || pe+subsystemOffset+2 > len(data) || string(data[pe:pe+4]) != "PE\x00\x00" {
		return errors.New("not a Windows program (no PE header)")
	}
	if s := binary.LittleEndian.Uint16(data[pe+subsystemOffset:]); s != subsystemGUI {
		return fmt.Errorf("subsystem %d, want %d (a GUI program)", s, subsystemGUI)
	}
	binary.LittleEndian.PutUint16(data[pe+subsystemOffset:], subsystemConsole)
	if binary.LittleEndian.Uint32(data[pe+checksumOffset:]) != 0 {
		binary.LittleEndian.PutUint32(data[pe+checksumOffset:], checksum(data, pe+checksumOffset))
	}
	return nil
}

// checksum is the PE image checksum (what imagehlp's CheckSumMappedFile computes): the
// one's-complement sum of the file's 16-bit words, the checksum field counted as zero, folded
// to 16 bits, plus the file's length.
func checksum(data []byte, field int) uint32 {
	var sum uint64
	for i := 0; i+1 < len(data); i += 2 {
		if i == field || i == field+2 {
			continue
		}
		sum += uint64(binary.LittleEndian.Uint16(data[i:]))
	}
	if len(data)%2 == 1 {
		sum += uint64(data[len(data)-1])
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return uint32(sum) + uint32(len(data))
}
