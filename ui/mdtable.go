package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	east "github.com/yuin/goldmark/extension/ast"
)

// tableSegment is a Markdown table inside a RichText: a grid of cells on its own row (a
// RichText has no table of its own, and monospace columns do not line up once a cell holds
// a character from a fallback font).
type tableSegment struct {
	rows   [][]string
	cols   int
	header bool
	align  []east.Alignment
}

func (t *tableSegment) Inline() bool { return false }

// Textual is the table as tab-separated rows (what a copy of it gives).
func (t *tableSegment) Textual() string {
	lines := make([]string, len(t.rows))
	for i, r := range t.rows {
		lines[i] = strings.Join(r, "\t")
	}
	return strings.Join(lines, "\n")
}

// Visual builds the grid: one label per cell, the header row in bold.
func (t *tableSegment) Visual() fyne.CanvasObject {
	grid := container.NewGridWithColumns(max(1, t.cols))
	for i, r := range t.rows {
		for j := 0; j < t.cols; j++ {
			l := widget.NewLabel("")
			if j < len(r) {
				l.SetText(r[j])
			}
			l.Wrapping = fyne.TextWrapWord
			l.TextStyle.Bold = i == 0 && t.header
			if j < len(t.align) {
				switch t.align[j] {
				case east.AlignRight:
					l.Alignment = fyne.TextAlignTrailing
				case east.AlignCenter:
					l.Alignment = fyne.TextAlignCenter
				}
			}
			grid.Add(l)
		}
	}
	return grid
}

func (t *tableSegment) Update(fyne.CanvasObject)  {}
func (t *tableSegment) Select(_, _ fyne.Position) {}
func (t *tableSegment) SelectedText() string      { return "" }
func (t *tableSegment) Unselect()                 {}
