package residency

import "strings"

// underDevicePath says whether a mapped file's NT device path (\Device\HarddiskVolume3\Users\…)
// lies under want, a folder path without its volume (\users\…\, lower case).
func underDevicePath(devicePath, want string) bool {
	p := strings.ToLower(devicePath)
	// Skip "\Device\<volume>" to reach the path within the volume.
	parts := strings.SplitN(p, `\`, 4)
	if len(parts) < 4 {
		return false
	}
	return strings.HasPrefix(`\`+parts[3], want)
}
