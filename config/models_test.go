package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestModelFolders(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	sep := string(os.PathListSeparator)
	s := Defaults()
	s.ModelFolders = " " + a + sep + sep + b + " "
	if diff := cmp.Diff([]string{a, b}, s.UserModelFolders()); diff != "" {
		t.Errorf("UserModelFolders (-want +got):\n%s", diff)
	}
	if errs := s.Validate(); len(errs) != 0 {
		t.Errorf("valid folders: %v", errs)
	}
	s.ModelFolders = a + sep + filepath.Join(a, "gone")
	errs := s.Validate()
	if len(errs) != 1 || errs[0].Field != "model_folders" || !strings.Contains(errs[0].Message, "gone is not a folder") {
		t.Errorf("missing folder: %v", errs)
	}
	if s.ModelsFolder() != DefaultModelsDir() || DefaultModelsDir() == "" {
		t.Errorf("ModelsFolder() = %q, want the default %q", s.ModelsFolder(), DefaultModelsDir())
	}
	s.ModelsDir = a
	if s.ModelsFolder() != a {
		t.Errorf("ModelsFolder() = %q, want %q", s.ModelsFolder(), a)
	}
}

func TestModelSettingsFromEnvironment(t *testing.T) {
	t.Setenv("EDGECHAT_HF_TOKEN", "hf_x")
	t.Setenv("EDGECHAT_MODELS_DIR", "/m")
	st, err := Open(filepath.Join(t.TempDir(), "settings.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if s := st.Settings(); s.HFToken != "hf_x" || s.ModelsDir != "/m" {
		t.Errorf("settings = token %q, models dir %q; want the variables' values", s.HFToken, s.ModelsDir)
	}
}
