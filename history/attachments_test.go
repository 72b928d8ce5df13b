package history

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"edgechat/reply"
)

func TestAttachmentsAndSourcesSaved(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	added := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	c := NewConversation("Docs")
	c.Attachments = []Attachment{{Name: "report.pdf", File: "report.pdf", Size: 1234, Added: added}}
	c.Messages = []Message{
		{ID: "1", Role: RoleUser, Content: "Code?", Created: added},
		{ID: "2", Role: RoleAssistant, Content: "7341 [1]", Created: added, Sources: []reply.Source{{File: "report.pdf", Page: 250, Text: "The code is 7341."}}},
	}
	if err := s.Save(c); err != nil {
		t.Fatal(err)
	}
	back, err := s.Load(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c.Attachments, back.Attachments); diff != "" {
		t.Errorf("attachments (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(c.Messages[1].Sources, back.Messages[1].Sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	// A copy does not share the lists.
	cp := back.clone()
	cp.Attachments[0].Name = "changed"
	cp.Messages[1].Sources[0].Page = 1
	if back.Attachments[0].Name != "report.pdf" || back.Messages[1].Sources[0].Page != 250 {
		t.Error("clone shares attachments or sources with the original")
	}
}

func TestFileWithoutAttachments(t *testing.T) {
	c, err := decode([]byte(`{"version":1,"id":"abc","title":"Old","message_count":0,"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Attachments != nil {
		t.Errorf("attachments %+v, want none", c.Attachments)
	}
}
