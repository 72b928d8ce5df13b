package ui

// RetryFailed reads again the open conversation's scanned PDFs that could not be read, and
// the PDFs whose scanned pages were left unread, after the settings changed: text
// recognition may be on now. Main goroutine only.
func (vm *ChatVM) RetryFailed() {
	if vm.deps.Files == nil {
		return
	}
	items, _ := vm.Attachments.Get()
	for _, a := range items {
		if a.scan.Load() {
			vm.reread(a)
		}
	}
}

// Retry reads a failed attachment of the open conversation again (its chip's button): a
// text recognition that failed or was stopped, a file that was busy. Main goroutine only.
func (vm *ChatVM) Retry(a *AttachmentVM) {
	if vm.deps.Files == nil || !get[bool](a.Failed) {
		return
	}
	vm.reread(a)
}

func (vm *ChatVM) reread(a *AttachmentVM) {
	_ = a.Failed.Set(false)
	vm.index(get[string](vm.CurrentID), a)
}
