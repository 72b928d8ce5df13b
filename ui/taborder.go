package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
)

// borderInReadingOrder is container.NewBorder with its objects in reading order: top, left,
// center, right, bottom. Tab moves focus in the order of a container's objects, and
// NewBorder puts the center first, so Tab would visit a list before the search above it.
func borderInReadingOrder(top, bottom, left, right fyne.CanvasObject, center ...fyne.CanvasObject) *fyne.Container {
	var objs []fyne.CanvasObject
	for _, o := range []fyne.CanvasObject{top, left} {
		if o != nil {
			objs = append(objs, o)
		}
	}
	objs = append(objs, center...)
	for _, o := range []fyne.CanvasObject{right, bottom} {
		if o != nil {
			objs = append(objs, o)
		}
	}
	return container.New(layout.NewBorderLayout(top, bottom, left, right), objs...)
}

// unfocus takes the focus from the view being replaced. Fyne moves focus to the new content
// without telling the old focused widget, so the message box's cursor went on blinking
// unseen, redrawing the window ~25 times a second, while the settings or models were shown.
func (m *MainWindow) unfocus() { m.Window.Canvas().Unfocus() }
