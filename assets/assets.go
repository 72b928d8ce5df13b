// Package assets holds the files built into the EdgeChat binary: the app and window icon.
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.png
var iconPNG []byte

// Icon is EdgeChat's icon (a 512×512 PNG drawn by packaging/mkicon), for
// fyne.App.SetIcon and fyne.Window.SetIcon. FyneApp.toml names the same file.
var Icon fyne.Resource = fyne.NewStaticResource("icon.png", iconPNG)
