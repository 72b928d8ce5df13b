package demo

import (
	"testing"

	"edgechat/documents"
	"edgechat/reply"
)

func TestDocumentAnswer(t *testing.T) {
	srcs := []reply.Source{
		{File: "a.pdf", Page: 3, Text: "Lunch is at noon. The vault code is 7341."},
		{File: "a.pdf", Page: 9, Text: "Nothing here."},
	}
	tests := []struct {
		name, content string
		want          string
		ok            bool
	}{
		{"no passages", "Hi", "", false},
		{"cites the best sentence", documents.Compose("What is the vault code?", srcs),
			"According to your document: **The vault code is 7341.** [1]\n\nOpen the source below to read the passage it comes from.", true},
		{"nothing matches", documents.Compose("Who won?", srcs[1:]), "The attached passages do not say — try asking with words the document uses.", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := documentAnswer(reply.Request{Messages: []reply.Message{{Role: "user", Content: tt.content}}})
			if got != tt.want || ok != tt.ok {
				t.Errorf("documentAnswer = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
