//go:build !unix

package offheap

func mapAnon(int) []byte { return nil }

func unmap([]byte) {}
