package demo

import (
	"fmt"
	"regexp"
	"strings"

	"edgechat/reply"
)

// passageHead matches the "[3] report.pdf, page 12" line documents.Compose writes.
var passageHead = regexp.MustCompile(`(?m)^\[(\d+)\] .+$`)

// documentAnswer is the demo engine's reply to a question asked with passages: the sentence
// of the passages that shares the most words with the question, cited — enough to show the
// sources in screenshots without a model.
func documentAnswer(req reply.Request) (string, bool) {
	if len(req.Messages) == 0 {
		return "", false
	}
	msg := req.Messages[len(req.Messages)-1].Content
	i := strings.LastIndex(msg, "\n\nQuestion: ")
	if i < 0 {
		return "", false
	}
	question := msg[i+len("\n\nQuestion: "):]
	want := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(question)) {
		if w = strings.Trim(w, "?.,!"); len(w) > 3 {
			want[w] = true
		}
	}
	heads := passageHead.FindAllStringSubmatchIndex(msg[:i], -1)
	best, bestN, bestScore := "", "", 0
	for k, h := range heads {
		end := i
		if k+1 < len(heads) {
			end = heads[k+1][0]
		}
		for _, s := range strings.SplitAfter(strings.Join(strings.Fields(msg[h[1]:end]), " "), ". ") {
			score := 0
			for _, w := range strings.Fields(strings.ToLower(s)) {
				if want[strings.Trim(w, "?.,!")] {
					score++
				}
			}
			if score > bestScore {
				best, bestN, bestScore = strings.TrimSpace(s), msg[h[2]:h[3]], score
			}
		}
	}
	if best == "" {
		return "The attached passages do not say — try asking with words the document uses.", true
	}
	return fmt.Sprintf("According to your document: **%s** [%s]\n\nOpen the source below to read the passage it comes from.", best, bestN), true
}
