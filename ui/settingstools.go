package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"edgechat/mcp"
)

// toolsListTimeout bounds Settings' "Show tools" (servers that start, then list).
const toolsListTimeout = 60 * time.Second

// ShowTools starts the servers of the mcp.json in the mcp_config field, lists their tools
// with descriptions into ToolsList, and stops them again. It runs off the main goroutine;
// only the button calls it (servers start on the user's action).
func (vm *SettingsVM) ShowTools() {
	path := strings.TrimSpace(get[string](vm.Fields["mcp_config"]))
	if vm.ToolsList == nil {
		vm.ToolsList = binding.NewString()
	}
	if path == "" {
		_ = vm.ToolsList.Set("No MCP servers: choose an mcp.json first. Tools are off until you do.")
		return
	}
	_ = vm.ToolsList.Set("Starting the servers…")
	go func() {
		_ = vm.ToolsList.Set(listTools(path))
	}()
}

// listTools is the text ShowTools shows.
func listTools(path string) string {
	cfg, err := mcp.LoadConfig(path)
	if err != nil {
		return err.Error()
	}
	host := mcp.NewHost(cfg)
	defer host.Close()
	ctx, cancel := context.WithTimeout(context.Background(), toolsListTimeout)
	defer cancel()
	offered, errs := host.Tools(ctx)
	_, more := mcp.ReplyTools(offered)
	var b strings.Builder
	for _, s := range host.Servers() {
		fmt.Fprintf(&b, "%s (%s)\n", s.Name, s.Transport())
		for _, t := range offered {
			if t.Server == s.Name {
				fmt.Fprintf(&b, "  • %s — %s\n", t.Offered, oneLineText(t.Description, 160))
			}
		}
	}
	for _, e := range append(errs, more...) {
		fmt.Fprintf(&b, "⚠ %v\n", e)
	}
	if len(offered) == 0 && len(errs) == 0 {
		b.WriteString("The servers offer no tools.\n")
	}
	return strings.TrimSpace(b.String())
}

func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// toolsSection is Settings' MCP part: the mcp.json, what approval means, and the tools.
func (v *SettingsView) toolsSection() fyne.CanvasObject {
	if v.vm.ToolsList == nil {
		v.vm.ToolsList = binding.NewString()
	}
	list := v.label(v.vm.ToolsList)
	list.Wrapping = fyne.TextWrapWord
	list.Selectable = true
	show := widget.NewButtonWithIcon("Show tools", theme.SearchIcon(), v.vm.ShowTools)
	return container.NewVBox(
		section("Tools (MCP servers)"),
		v.form(v.item("MCP servers (mcp.json)", "mcp_config", v.pathRow("mcp_config", false, true, ""))),
		caption(`An mcp.json in the usual form: {"mcpServers": {"name": {"command": "npx", "args": […], "env": {…}} or {"url": "http://…", "headers": {…}}}}. `+
			"The servers start when a reply first needs them and stop with EdgeChat. Each call asks you first: Allow once, Always for this tool (until EdgeChat quits) or Deny."),
		container.NewHBox(show),
		list,
	)
}
