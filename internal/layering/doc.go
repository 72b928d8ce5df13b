// Package layering holds no code: its test enforces which packages may depend on which (the
// map in README.md's Development section), by asking the go command for each package's
// dependencies.
package layering
