// Package hub downloads model folders from the Hugging Face Hub (or a mirror named by
// HF_ENDPOINT): it lists a repository's files at a pinned commit, chooses what a model folder
// needs, and fetches them into <models dir>/ORG--NAME/<commit>/ through temporary files that are
// renamed into place only after their sha256 (LFS) or git blob hash matched. Interrupted
// downloads resume with HTTP Range, across processes; a lock keeps two pullers of the same
// model apart. It never imports Fyne.
package hub
