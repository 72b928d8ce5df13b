package extract_test

import (
	"strings"
	"testing"
)

// TestRTFBinaryData skips the N bytes of \binN whatever they are: striprtf's BVWGT decision
// (tests/rtf) has a JPEG written as \bin50604, whose bytes hold braces and backslashes; they
// were read as groups and controls, and the 20,000 words after the picture were lost.
func TestRTFBinaryData(t *testing.T) {
	for _, c := range []struct{ name, rtf, want string }{
		{"braces and backslashes in the data", "{\\rtf1\\ansi Before.\\par {\\pict\\jpegblip\\bin9 }}{\\x\\'{\\}}After.\\par}", "Before.\n\nAfter."},
		{"data without the delimiting space", "{\\rtf1\\ansi A{\\pict\\bin3{{{}B\\par}", "AB"},
		{"a count past the end", "{\\rtf1\\ansi Kept.\\par \\bin999 abc", "Kept."},
	} {
		t.Run(c.name, func(t *testing.T) { checkRTF(t, c.rtf, c.want) })
	}
}

// TestRTFDeepGroups reads groups nested thousands deep: Outlook's HTML kept in RTF
// (\fromhtml1) opens a group for each tag it does not close (RtfPipe's Issue52.rtf nests
// 2,714 deep, refused at 100 as too deep, which pandoc reads).
func TestRTFDeepGroups(t *testing.T) {
	open := strings.Repeat(`{\*\htmltag84 <SPAN>}\htmlrtf {\lang1033 \htmlrtf0 `, 3000)
	shut := strings.Repeat(`{\*\htmltag92 </SPAN>}\htmlrtf }\htmlrtf0 `, 3000)
	checkRTF(t, `{\rtf1\ansi\fromhtml1 `+open+`Chinese Patent Application`+shut+`\par}`, "Chinese Patent Application")
}

// TestRTFEndOfDocument stops where the document's group closes: what follows is not RTF.
// rtfparserkit's test files end "}\r\n\x00", and the NUL byte was read as a word of the text
// (Word and pandoc stop at the brace). Where more RTF follows, a stray brace closed the group
// too early and the rest is read.
func TestRTFEndOfDocument(t *testing.T) {
	for _, c := range []struct{ name, rtf, want string }{
		{"a NUL byte after the brace", "{\\rtf1\\ansi\\'41\\'42\\'43\\par\r\n}\r\n\x00", "ABC"},
		{"text after the brace", "{\\rtf1\\ansi Hello world}\r\nafter words", "Hello world"},
		{"groups inside are not the end", "{\\rtf1\\ansi {\\b Bold} and {\\i more}\\par}", "Bold and more"},
		{"a stray brace before more RTF", "{\\rtf1\\ansi First.\\par}}\\pard Second.\\par}", "First.\n\nSecond."},
	} {
		t.Run(c.name, func(t *testing.T) { checkRTF(t, c.rtf, c.want) })
	}
}
