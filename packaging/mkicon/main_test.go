package main

import (
	"bytes"
	"image/png"
	"os"
	"testing"
)

// TestCommittedIconIsCurrent fails when assets/icon.png no longer matches what this program
// draws: run `make icon` after changing the drawing.
func TestCommittedIconIsCurrent(t *testing.T) {
	want, err := Encode(512)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../assets/icon.png")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("assets/icon.png differs from packaging/mkicon's drawing: run `make icon`")
	}
	img, err := png.Decode(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 512 || b.Dy() != 512 {
		t.Fatalf("icon is %v, want 512×512", b.Size())
	}
}

// TestSmallSizesKeepTheShape checks that a 16×16 drawing still has a transparent corner, an
// opaque bubble and the dark chip in the middle.
func TestSmallSizesKeepTheShape(t *testing.T) {
	img := Draw(16)
	if a := img.NRGBAAt(15, 15).A; a != 0 {
		t.Errorf("bottom-right corner alpha %d, want transparent", a)
	}
	if a := img.NRGBAAt(2, 8).A; a < 200 {
		t.Errorf("bubble edge alpha %d, want opaque", a)
	}
	if c := img.NRGBAAt(5, 4); c.R > 80 || c.G > 80 {
		t.Errorf("chip body colour %v, want dark", c)
	}
}
