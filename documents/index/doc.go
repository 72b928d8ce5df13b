// Package index splits extracted documents into overlapping chunks and ranks them against a
// question with BM25 (Okapi, k1 = 1.2, b = 0.75) over English-stemmed terms. An Index is
// immutable once built, safe for concurrent searches, and saved to and loaded from one file.
package index
