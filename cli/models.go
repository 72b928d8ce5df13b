package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"

	"edgechat/config"
	"edgechat/models/discover"
	"edgechat/models/hub"
)

func init() {
	register(Command{Name: "models", Summary: "list the models already on this PC (Hugging Face cache, Foundry Local, AI Toolkit, …)", Run: runModels})
}

// settingsFor reads the settings file (file "" = the default one; none at all = defaults) and
// prints on stderr what the window lists under problems: a damaged file moved aside, values
// skipped or put back to their defaults, environment variables ignored.
func settingsFor(env Env, file string) (config.Settings, error) {
	if file == "" && config.DefaultFile() == "" {
		return config.Defaults(), nil
	}
	st, err := config.Open(file)
	if err != nil {
		return config.Settings{}, err
	}
	for _, w := range st.Warnings() {
		fmt.Fprintln(env.Stderr, "warning: "+w)
	}
	return st.Settings(), nil
}

func runModels(env Env) error {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	cfg := fs.String("config", "", "settings file with the models folder and extra folders (default "+config.DefaultFile()+")")
	dir := fs.String("models-dir", "", "EdgeChat's models folder (default: the settings')")
	asJSON := fs.Bool("json", false, "print a JSON array of models")
	verbose := fs.Bool("verbose", false, "also list the folders skipped and why")
	if err := fs.Parse(env.Args); err != nil {
		return errUsage
	}
	s, err := settingsFor(env, *cfg)
	if err != nil {
		return err
	}
	if *dir != "" {
		s.ModelsDir = *dir
	}
	res := discover.Scan(discover.RootsFromEnv(s.ModelsFolders(), s.UserModelFolders()))
	if *asJSON {
		if res.Models == nil {
			res.Models = []discover.Model{}
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res.Models); err != nil {
			return err
		}
	} else {
		printModels(env, res.Models)
	}
	if *verbose {
		for _, sk := range res.Skipped {
			fmt.Fprintf(env.Stderr, "skipped %s (%s): %s\n", sk.Path, sk.Source, sk.Reason)
		}
	} else if len(res.Skipped) > 0 {
		fmt.Fprintf(env.Stderr, "%d folders that look like unfinished or damaged models were skipped (--verbose lists them)\n", len(res.Skipped))
	}
	return nil
}

func printModels(env Env, list []discover.Model) {
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "No models found on this PC. Download one with: edgechat pull onnx-community/Qwen3-0.6B-ONNX")
		return
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	defer w.Flush()
	fmt.Fprintln(w, "  NAME\tKIND\tLAYOUT\tDEVICE\tWEIGHTS\tSIZE\tPATH")
	var last discover.Source
	for _, m := range list {
		if m.Source != last {
			fmt.Fprintf(w, "%s (%s)\n", m.Source.Describe(), m.Source)
			last = m.Source
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.Name, m.Kind, m.Layout, m.Device, m.Quantization, hub.Bytes(m.SizeBytes), m.Path)
	}
}
