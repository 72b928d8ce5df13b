package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// fixedVariant is the default theme held to one variant (light or dark) whatever the system
// prefers.
type fixedVariant struct {
	fyne.Theme
	variant fyne.ThemeVariant
}

func (t fixedVariant) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.variant)
}

// ApplyTheme sets the app's theme from the setting "system", "light" or "dark".
func ApplyTheme(a fyne.App, name string) {
	switch name {
	case "light":
		a.Settings().SetTheme(fixedVariant{theme.DefaultTheme(), theme.VariantLight})
	case "dark":
		a.Settings().SetTheme(fixedVariant{theme.DefaultTheme(), theme.VariantDark})
	default:
		a.Settings().SetTheme(theme.DefaultTheme())
	}
}
