package main

import (
	"strings"
	"testing"
)

// The words of a Velthuis source, as doccheck's truth for PDFs made from it.
func TestVelthuisText(t *testing.T) {
	tests := []struct{ src, want string }{
		{`{\dn agnimiile purohita.m}`, "अग्निमीले पुरोहितं"},
		{`{\dn yaj~nasya devam.rtvijam |}`, "यज्ञस्य देवमृत्विजम् ।"},
		{`{\dn \_{a}gni\|{mii}Le {\dnnormal 1..1}}`, "अग्निमीळे १.१"},
		{`{\dn \^{a}{2}\^{gna}{3} "sve}`, "अग्न श्वे"},
		{`\centerline{{\rmhead \d{R}gveda sa\d{m}hit\=a}} % comment`, "Ṛgveda saṃhitā"},
		{`\def\x{y}` + "\n" + `v\={\i}\^3ta`, "vı̄ta"},
	}
	for _, tt := range tests {
		if got := strings.Join(strings.Fields(velthuisText(tt.src)), " "); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.src, got, tt.want)
		}
	}
}
