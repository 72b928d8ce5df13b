package main

import (
	"encoding/binary"
	"strings"
	"testing"
)

// fakePE is a 512-byte file with a DOS header pointing at a PE signature at 128, the given
// subsystem and checksum fields, and some bytes to sum.
func fakePE(subsystem uint16, sum uint32) []byte {
	b := make([]byte, 512)
	copy(b, "MZ")
	binary.LittleEndian.PutUint32(b[60:], 128)
	copy(b[128:], "PE\x00\x00")
	binary.LittleEndian.PutUint32(b[128+checksumOffset:], sum)
	binary.LittleEndian.PutUint16(b[128+subsystemOffset:], subsystem)
	for i := 300; i < 512; i++ {
		b[i] = byte(i)
	}
	return b
}

func TestTwin(t *testing.T) {
	for _, c := range []struct {
		name    string
		in      []byte
		wantErr string
	}{
		{"GUI program without checksum", fakePE(2, 0), ""},
		{"GUI program with a checksum", fakePE(2, 1), ""},
		{"already a console program", fakePE(3, 0), "subsystem 3"},
		{"not a program", []byte(strings.Repeat("x", 100)), "no MZ header"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := append([]byte(nil), c.in...)
			err := twin(data)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := binary.LittleEndian.Uint16(data[128+subsystemOffset:]); s != subsystemConsole {
				t.Errorf("subsystem %d, want 3", s)
			}
			stored := binary.LittleEndian.Uint32(c.in[128+checksumOffset:])
			got := binary.LittleEndian.Uint32(data[128+checksumOffset:])
			if stored == 0 && got != 0 {
				t.Errorf("checksum %#x written where the program had none", got)
			}
			if stored != 0 && got != wordSum(data, 128+checksumOffset) {
				t.Errorf("checksum %#x, want %#x", got, wordSum(data, 128+checksumOffset))
			}
			for i := range data {
				if data[i] != c.in[i] && (i < 128+checksumOffset || i >= 128+subsystemOffset+2) {
					t.Errorf("byte %d changed", i)
				}
			}
		})
	}
}

// wordSum is the PE checksum computed the slow way, with the carry folded after every word
// (as imagehlp's CheckSumMappedFile does).
func wordSum(data []byte, field int) uint32 {
	var sum uint32
	for i := 0; i < len(data); i += 2 {
		if i == field || i == field+2 {
			continue
		}
		sum += uint32(binary.LittleEndian.Uint16(data[i:]))
		sum = sum&0xffff + sum>>16
	}
	return sum + uint32(len(data))
}
