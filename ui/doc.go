// Package ui owns EdgeChat's window: view models that hold Fyne data bindings and talk to the
// engine through small interfaces declared here, and the views that bind to them.
//
// Goroutines: view-model methods are called from the Fyne main goroutine (gestures); each
// reply is consumed by one stream goroutine per ChatVM, which only sets bindings. Views change
// widgets only inside binding listeners, which Fyne runs on the main goroutine.
package ui
