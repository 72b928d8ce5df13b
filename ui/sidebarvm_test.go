package ui

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"edgechat/history"
)

func seed(t testing.TB, st *memStore, titles ...string) []string {
	t.Helper()
	var ids []string
	for i, title := range titles {
		c := history.NewConversation(title)
		c.Updated = time.Unix(int64(i), 0)
		c.Messages = []history.Message{{ID: "m", Role: "user", Content: "about " + title}}
		if err := st.Save(c); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	return ids
}

func titles(vm *SidebarVM) []string {
	items, _ := vm.Items.Get()
	out := []string{}
	for _, it := range items {
		out = append(out, it.Title)
	}
	return out
}

func TestSidebarVM(t *testing.T) {
	test.NewTempApp(t)
	st := newMemStore()
	ids := seed(t, st, "Apples", "Bananas", "Cherries")
	vm := NewSidebarVM(st)
	vm.Reload()
	if got := fmt.Sprint(titles(vm)); got != "[Apples Bananas Cherries]" {
		t.Fatalf("list = %s", got)
	}

	tests := []struct {
		name string
		do   func() error
		want string
		undo string
	}{
		{"search titles", func() error { return vm.Query.Set("bana") }, "[Bananas]", ""},
		{"search contents", func() error { return vm.Query.Set("about cherries") }, "[Cherries]", ""},
		{"clear search", func() error { return vm.Query.Set("") }, "[Apples Bananas Cherries]", ""},
		{"rename", func() error { return vm.Rename(ids[0], "  Avocados ") }, "[Avocados Bananas Cherries]", ""},
		{"delete", func() error { return vm.Delete(ids[1]) }, "[Avocados Cherries]", "Deleted “Bananas”"},
		{"undo", vm.UndoDelete, "[Avocados Bananas Cherries]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(titles(vm)); got != tt.want {
				t.Errorf("list = %s, want %s", got, tt.want)
			}
			if got := get[string](vm.Undo); got != tt.undo {
				t.Errorf("undo bar = %q, want %q", got, tt.undo)
			}
		})
	}
	if err := vm.Rename(ids[0], "  "); err == nil {
		t.Error("renaming to blanks was accepted")
	}
}

func TestSidebarDeleteClosesOpenConversation(t *testing.T) {
	test.NewTempApp(t)
	st := newMemStore()
	ids := seed(t, st, "Open one")
	closed := ""
	vm := NewSidebarVM(st)
	vm.CloseIfOpen = func(id string) { closed = id }
	if err := vm.Delete(ids[0]); err != nil {
		t.Fatal(err)
	}
	if closed != ids[0] {
		t.Errorf("CloseIfOpen got %q, want %q", closed, ids[0])
	}
}

// BenchmarkSidebarReload lists 500 conversations (titles only).
func BenchmarkSidebarReload(b *testing.B) {
	test.NewTempApp(b)
	st := newMemStore()
	names := make([]string, 500)
	for i := range names {
		names[i] = fmt.Sprintf("Conversation %03d", i)
	}
	seed(b, st, names...)
	vm := NewSidebarVM(st)
	for b.Loop() {
		vm.Reload()
	}
}
