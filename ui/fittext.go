package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// A widget.Button has no Truncation (Fyne 2.7), and its minimum width is its text's: a long
// model header squeezed the chat's title to nothing. The header's model text is cut with an
// ellipsis to the room the header has for it (headerLayout: what the title and the buttons
// beside it leave, recomputed at each width); the whole of it is the button's tip.

// modelHeaderWidth is the widest the model text is drawn before the header is first laid out.
const modelHeaderWidth float32 = 340

// titleRoom is the room the header keeps for the chat's title (less when the title is
// shorter): the model text gets the rest.
const titleRoom float32 = 200

// fitText is s cut at the end, with "…", to be at most max wide in the theme's text size and
// style; s itself when it fits. The second result says whether it was cut.
func fitText(s string, max float32, style fyne.TextStyle) (string, bool) {
	size := theme.TextSize()
	if fyne.MeasureText(s, size, style).Width <= max {
		return s, false
	}
	r := []rune(s)
	lo, hi := 0, len(r) // the longest prefix that fits, with the ellipsis, is r[:lo]
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fyne.MeasureText(string(r[:mid])+"…", size, style).Width <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(r[:lo]) + "…", true
}

// headerFit is the model button's whole text and the room it has.
type headerFit struct {
	btn   *tipButton
	full  string  // the model label
	tip   string  // the tip when the text is not cut ("" → the default)
	width float32 // room for the text; 0 before the first layout
}

// boldWidth is s's width in a button's bold text.
func boldWidth(s string) float32 {
	return fyne.MeasureText(s, theme.TextSize(), fyne.TextStyle{Bold: true}).Width
}

// apply shows the label cut to the room there is, and the whole of it as the tip when cut.
func (f *headerFit) apply() {
	room := f.width
	if room <= 0 {
		room = modelHeaderWidth
	}
	text, cut := fitText(f.full, room, fyne.TextStyle{Bold: true})
	switch {
	case f.tip != "":
		f.btn.Tip = f.tip
	case cut:
		f.btn.Tip = f.full + " — choose the model"
	default:
		f.btn.Tip = "Choose the model"
	}
	if f.btn.Text != text {
		f.btn.SetText(text)
	}
}

// headerLayout lays out the chat header: the title on the left, then the model button, then
// the other buttons on the right. Objects: title, model button, the other buttons. The model
// text gets the width the others leave it, keeping titleRoom for the title.
type headerLayout struct{ fit *headerFit }

func (l headerLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	title, model, rest := objs[0].MinSize(), objs[1].MinSize(), objs[2].MinSize()
	if l.fit != nil { // the button as narrow as a letter and the ellipsis
		model.Width += boldWidth("M…") - boldWidth(l.fit.btn.Text)
	}
	return fyne.NewSize(title.Width+model.Width+rest.Width+2*theme.Padding(),
		max(title.Height, model.Height, rest.Height))
}

func (l headerLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	title, model, rest := objs[0], objs[1], objs[2]
	pad := theme.Padding()
	restW := rest.MinSize().Width
	if l.fit != nil {
		chrome := model.MinSize().Width - boldWidth(l.fit.btn.Text) // icon and padding
		keep := titleRoom
		if t, ok := title.(*widget.Label); ok {
			keep = min(keep, fyne.MeasureText(t.Text, theme.TextSize(), t.TextStyle).Width+2*theme.InnerPadding())
		}
		l.fit.width = max(boldWidth("M…"), size.Width-restW-2*pad-chrome-keep)
		l.fit.apply()
	}
	modelW := min(model.MinSize().Width, max(0, size.Width-restW-pad))
	rest.Move(fyne.NewPos(size.Width-restW, 0))
	rest.Resize(fyne.NewSize(restW, size.Height))
	model.Move(fyne.NewPos(size.Width-restW-pad-modelW, 0))
	model.Resize(fyne.NewSize(modelW, size.Height))
	title.Move(fyne.Position{})
	title.Resize(fyne.NewSize(max(0, size.Width-restW-modelW-2*pad), size.Height))
}
