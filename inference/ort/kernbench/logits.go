package main

import (
	"math"
	"slices"
)

// maxAbsDiff is the largest |a[i]-b[i]|: how far two sides' outputs or logits part.
func maxAbsDiff(a, b []float32) float64 {
	d := 0.0
	for i, v := range a {
		d = max(d, math.Abs(float64(v-b[i])))
	}
	return d
}

// spread is the standard deviation of x: the scale a logits difference is told in.
func spread(x []float32) float64 {
	var sum, sq float64
	for _, v := range x {
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	n := float64(len(x))
	return math.Sqrt(sq/n - (sum/n)*(sum/n))
}

// topGap is the gap between the two largest of x: how near a greedy choice is to flipping.
func topGap(x []float32) float64 {
	top := slices.Clone(x)
	slices.Sort(top)
	return float64(top[len(top)-1] - top[len(top)-2])
}
