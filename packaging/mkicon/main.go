// Command mkicon draws EdgeChat's app icon, a chat bubble holding an NPU chip, and writes it
// as a PNG (assets/icon.png). The drawing is deterministic: run it again and the bytes match.
//
// Usage: go run ./packaging/mkicon [-size 512] [-o assets/icon.png]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
)

func main() {
	size := flag.Int("size", 512, "width and height in pixels")
	out := flag.String("o", "assets/icon.png", "output PNG file")
	flag.Parse()
	data, err := Encode(*size)
	if err == nil {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkicon:", err)
		os.Exit(1)
	}
}

// Encode draws the icon at size×size and returns it as PNG bytes.
func Encode(size int) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, Draw(size)); err != nil {
		return nil, fmt.Errorf("encode icon: %w", err)
	}
	return buf.Bytes(), nil
}

// Palette: a blue-to-teal bubble, a dark chip, a bright die.
var (
	bubbleTop    = color.NRGBA{0x25, 0x63, 0xEB, 0xFF}
	bubbleBottom = color.NRGBA{0x0E, 0xA5, 0xA0, 0xFF}
	chipColor    = color.NRGBA{0x0B, 0x12, 0x26, 0xFF}
	dieColor     = color.NRGBA{0x5E, 0xEA, 0xD4, 0xFF}
	traceColor   = color.NRGBA{0x0B, 0x12, 0x26, 0xFF}
)

// Draw renders the icon. Shapes are laid out on a 512-unit grid and scaled to size.
func Draw(size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	s := float64(size) / 512

	bubble := union(
		roundRect(32*s, 48*s, 480*s, 392*s, 104*s),
		triangle(pt{96 * s, 360 * s}, pt{248 * s, 360 * s}, pt{64 * s, 484 * s}),
	)
	fill(img, bubble, gradient(img.Bounds(), bubbleTop, bubbleBottom))

	// The chip: a dark body with three pins on each side, centred in the bubble's body.
	cx, cy := 256*s, 220*s
	body := 92 * s
	chip := []shape{roundRect(cx-body, cy-body, cx+body, cy+body, 22*s)}
	const pinLen, pinHalf, pinGap = 40.0, 13.0, 54.0
	for i := -1; i <= 1; i++ {
		o := float64(i) * pinGap * s
		chip = append(chip,
			roundRect(cx+o-pinHalf*s, cy-body-pinLen*s, cx+o+pinHalf*s, cy-body+1, 6*s), // top
			roundRect(cx+o-pinHalf*s, cy+body-1, cx+o+pinHalf*s, cy+body+pinLen*s, 6*s), // bottom
			roundRect(cx-body-pinLen*s, cy+o-pinHalf*s, cx-body+1, cy+o+pinHalf*s, 6*s), // left
			roundRect(cx+body-1, cy+o-pinHalf*s, cx+body+pinLen*s, cy+o+pinHalf*s, 6*s), // right
		)
	}
	fill(img, union(chip...), image.NewUniform(chipColor))

	// The die: a bright square with a dark spark, the "neural" core.
	die := 50 * s
	fill(img, roundRect(cx-die, cy-die, cx+die, cy+die, 12*s), image.NewUniform(dieColor))
	spark := union(
		triangle(pt{cx + 8*s, cy - 38*s}, pt{cx - 26*s, cy + 8*s}, pt{cx + 2*s, cy + 8*s}),
		triangle(pt{cx - 8*s, cy + 38*s}, pt{cx + 26*s, cy - 8*s}, pt{cx - 2*s, cy - 8*s}),
	)
	fill(img, spark, image.NewUniform(traceColor))
	return img
}

type pt struct{ x, y float64 }

// shape reports whether a point is inside.
type shape func(x, y float64) bool

func union(ss ...shape) shape {
	return func(x, y float64) bool {
		for _, s := range ss {
			if s(x, y) {
				return true
			}
		}
		return false
	}
}

func roundRect(x0, y0, x1, y1, r float64) shape {
	return func(x, y float64) bool {
		if x < x0 || x > x1 || y < y0 || y > y1 {
			return false
		}
		dx := math.Max(math.Max(x0+r-x, x-(x1-r)), 0)
		dy := math.Max(math.Max(y0+r-y, y-(y1-r)), 0)
		return dx*dx+dy*dy <= r*r
	}
}

func triangle(a, b, c pt) shape {
	side := func(p, q pt, x, y float64) float64 { return (q.x-p.x)*(y-p.y) - (q.y-p.y)*(x-p.x) }
	return func(x, y float64) bool {
		d1, d2, d3 := side(a, b, x, y), side(b, c, x, y), side(c, a, x, y)
		neg := d1 < 0 || d2 < 0 || d3 < 0
		pos := d1 > 0 || d2 > 0 || d3 > 0
		return !(neg && pos)
	}
}

// fill paints src through s's coverage, sampled 4×4 per pixel for smooth edges.
func fill(dst draw.Image, s shape, src image.Image) {
	const n = 4
	b := dst.Bounds()
	mask := image.NewAlpha(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			hits := 0
			for j := 0; j < n; j++ {
				for i := 0; i < n; i++ {
					if s(float64(x)+(float64(i)+0.5)/n, float64(y)+(float64(j)+0.5)/n) {
						hits++
					}
				}
			}
			mask.SetAlpha(x, y, color.Alpha{A: uint8(hits * 255 / (n * n))})
		}
	}
	draw.DrawMask(dst, b, src, b.Min, mask, b.Min, draw.Over)
}

// gradient is a vertical blend from top to bottom over r.
func gradient(r image.Rectangle, top, bottom color.NRGBA) image.Image {
	img := image.NewNRGBA(r)
	h := float64(r.Dy() - 1)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		t := float64(y-r.Min.Y) / math.Max(h, 1)
		c := color.NRGBA{
			R: lerp(top.R, bottom.R, t), G: lerp(top.G, bottom.G, t),
			B: lerp(top.B, bottom.B, t), A: 0xFF,
		}
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func lerp(a, b uint8, t float64) uint8 {
	return uint8(math.Round(float64(a) + (float64(b)-float64(a))*t))
}
