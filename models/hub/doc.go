// Package hub downloads model folders from the Hugging Face Hub (or a mirror named by
// HF_ENDPOINT): it lists a repository's files at a pinned commit, chooses what a model folder
// needs, and fetches them into <models dir>/ORG--NAME/<commit>/ through temporary files that are
// renamed into place only after their sha256 (LFS) or git blob hash matched. Interrupted
// downloads resume with HTTP Range, across processes; a lock keeps two pullers of the same
// model apart. It never imports Fyne.
//
// The server is not trusted: its answers are data, never paths. A commit id must be 40
// lowercase hex digits; a file's path a relative path that is a file name on every system
// (internal/safepath); sizes non-negative, agreeing and under a terabyte; the file list
// bounded in pages and entries and kept on the Hub's host; a file that keeps ending short
// fails after a bounded number of tries. Anything else is ErrBadServer, before a byte is
// written. Files are written only inside the repository's folder through an os.Root, never
// through a link, and clean-up removes only the files a pull recorded creating.
package hub
